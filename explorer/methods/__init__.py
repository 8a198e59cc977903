"""Scoring methods behind one interface. Importing this package imports each of its folders, and each registers its
methods with their descriptions (``base.register``): a new method is a new folder here."""

import importlib
import pkgutil

from explorer.methods.base import (
    REGISTRY, FigureInfo, MainPictures, MethodInfo, ScoringMethod, SegmentMap, canonical, get_method, in_page_order,
    main_method, main_pictures, options_from, page_methods, register, tour_steps,
)
from explorer.methods.results import Caution, Maps, Pointer, Score

__all__ = ["REGISTRY", "Caution", "FigureInfo", "canonical", "MainPictures", "Maps", "MethodInfo", "Pointer", "Score",
           "ScoringMethod", "SegmentMap", "discover", "get_method", "in_page_order", "main_method", "main_pictures",
           "options_from", "page_methods", "register", "tour_steps"]


def discover() -> None:
    """Import every module and folder of this package (its ``__path__``), so that each registers its methods."""
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")


discover()
