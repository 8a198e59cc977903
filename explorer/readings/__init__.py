"""A model's embedding space read: binding geometry and probes, swaps told apart, the null beside each."""

DRAWS = 30  # flipped scene tables behind each binding table reading's null (``binding_null``)
RENDERS = 8  # new drawings of each swap pair for the swaps told apart (docs/binding.md: the interval they give)
