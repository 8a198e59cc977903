"""Open_clip encoders and how their towers run; loading, the shipped checkpoints, the model configs; every ``nn.Module`` in ``modeling/``."""
