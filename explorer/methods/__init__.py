"""Scoring methods behind one interface. Importing this package imports each of its modules, and each registers its
methods with their descriptions (``base.register``): a new method is a new file here."""

import importlib
import pkgutil

from explorer.methods.base import (
    REGISTRY, FigureInfo, MethodInfo, Pointer, Score, ScoringMethod, SegmentMap, get_method, in_page_order,
    page_methods, register, resolve,
)

__all__ = ["REGISTRY", "FigureInfo", "MethodInfo", "Pointer", "Score", "ScoringMethod", "SegmentMap", "discover",
           "get_method", "in_page_order", "page_methods", "register", "resolve"]


def discover() -> None:
    """Import every module of this package (its ``__path__``), so that each registers its methods."""
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")


discover()
