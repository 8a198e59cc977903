"""The world's concepts: colours (the benchmark's and training-only ones), shapes, sizes, and the paints."""

from __future__ import annotations

import itertools
from typing import Literal

import numpy as np

COLORS: dict[str, tuple[int, int, int]] = {"red": (220, 38, 38), "orange": (245, 140, 20), "yellow": (240, 220, 40),
                                           "green": (30, 160, 60), "blue": (35, 85, 225), "purple": (140, 60, 190),
                                           "black": (15, 15, 15), "white": (250, 250, 250)}
SHAPES: tuple[str, ...] = ("circle", "square", "triangle", "star")
# Training-only concepts the benchmark never asks about (`train-world --extra-concepts K` adds the first K of
# each): with them each colour meets many shapes and each shape many colours. The extra colours stay at least
# EXTRA_MIN_DISTANCE (RGB) from every palette colour and the background, so none passes for a palette colour.
EXTRA_COLORS: dict[str, tuple[int, int, int]] = {"pink": (250, 150, 200), "cyan": (40, 215, 225),
                                                 "brown": (120, 65, 25), "olive": (110, 110, 20),
                                                 "lavender": (190, 170, 250), "mint": (150, 240, 190),
                                                 "teal": (0, 130, 140), "navy": (20, 25, 100),
                                                 "maroon": (100, 0, 30), "magenta": (240, 40, 240),
                                                 "salmon": (250, 120, 110), "sky": (140, 200, 250),
                                                 "indigo": (75, 0, 180), "peach": (255, 200, 150),
                                                 "plum": (110, 30, 90), "aqua": (120, 255, 255)}
EXTRA_SHAPES: tuple[str, ...] = ("hexagon", "cross", "diamond", "arrow", "bar", "oval", "chevron", "trapezoid",
                                 "hourglass", "heart", "crescent", "semicircle", "parallelogram", "kite", "house",
                                 "ring")
EXTRA_MIN_DISTANCE = 85.0
FILLS = {**COLORS, **EXTRA_COLORS}  # every colour name a scene may draw
SIZES: dict[str, float] = {"small": 0.24, "large": 0.36}
BACKGROUND = (128, 128, 128)
OUTLINE = (60, 40, 20)  # the shift style: every object outlined, a look training never shows
# grey: a black-and-white picture; unnamed: objects painted in colours outside the palette (both for training only)
Style = Literal["plain", "shift", "grey", "unnamed"]
PAINT_MIN_DISTANCE = 100.0  # how far (RGB, 0-255) an unnamed paint stays from every palette colour and the background
Combo = tuple[str, str]  # (color, shape)

ALL_COMBOS: tuple[Combo, ...] = tuple(itertools.product(COLORS, SHAPES))
_PALETTE_AND_BACKGROUND = np.array([*COLORS.values(), BACKGROUND], dtype=float)


def off_palette_paint(rng: np.random.Generator) -> tuple[int, int, int]:
    """A random RGB colour at least ``PAINT_MIN_DISTANCE`` from every palette colour and the background."""
    while True:
        rgb = rng.integers(0, 256, size=3)
        if np.linalg.norm(_PALETTE_AND_BACKGROUND - rgb, axis=1).min() >= PAINT_MIN_DISTANCE:
            return (int(rgb[0]), int(rgb[1]), int(rgb[2]))
