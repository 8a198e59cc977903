"""Scoring methods behind one interface. Importing this package imports each of its modules, and each registers its
methods with their descriptions (``base.register``): a new method is a new file here."""

import importlib
import pkgutil

from explorer.methods.base import REGISTRY, MethodInfo, Score, ScoringMethod, get_method, page_methods, register

__all__ = ["REGISTRY", "MethodInfo", "Score", "ScoringMethod", "discover", "get_method", "page_methods", "register"]


def discover() -> None:
    """Import every module of this package (its ``__path__``), so that each registers its methods."""
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")


discover()
