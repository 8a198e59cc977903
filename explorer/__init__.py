"""Binding explorer: why dual encoders confuse swapped captions, and what inference-side alignment does."""
