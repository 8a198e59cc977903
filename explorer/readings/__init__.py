"""A model's embedding space read: binding geometry and probes, swaps told apart, the null beside each."""
