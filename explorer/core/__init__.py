"""Foundations: the item type, the per-image state and its store, caches, cancellation, intervals, ranks and shards, settings, what a load may read, safe CSV cells."""
