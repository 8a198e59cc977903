"""A model's embedding space read: binding geometry and probes, swaps told apart, the null beside each."""

DRAWS = 500  # flipped scene tables behind each binding table reading's Monte-Carlo null (``binding_null``)
RENDERS = 8  # new drawings of each swap pair for the swaps told apart (docs/binding.md: the interval they give)
STOP = 10  # a probe's null stops drawing once this many flipped tables read at or above the model (Besag-Clifford)
BATCH = 50  # flipped tables a probe's null fits at once
