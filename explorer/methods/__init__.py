"""Scoring methods behind one interface; importing this package registers them all."""

from explorer.methods import cosine, powerset_method, sgi, tflocal  # noqa: F401  (registering them)
from explorer.methods.base import REGISTRY, Score, ScoringMethod, get_method

__all__ = ["REGISTRY", "Score", "ScoringMethod", "get_method"]
