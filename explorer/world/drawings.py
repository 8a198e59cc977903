"""Pictures of the world's objects drawn the way a person draws shapes for a slide, not by the world's renderer.

PIL's own primitives on a 300-pixel canvas of one flat colour, resized to the size a model asks for: a rectangle, an
ellipse, an equilateral triangle (``regular_polygon``), a five-pointed star of another depth, each in other
proportions than the world's. The ``drawn-*`` splits use them on white, light grey, the world's grey and a dark
background, so that a model's recognition off its own renderer is measured, not assumed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw

from explorer.world.palette import BACKGROUND, FILLS
from explorer.world.scene import WorldObject

DRAWN_BACKGROUNDS: dict[str, tuple[int, int, int]] = {"white": (255, 255, 255), "light": (235, 235, 235),
                                                       "grey": BACKGROUND, "dark": (30, 30, 30)}
DRAWN_PREFIX = "drawn-"
CANVAS = 300  # the drawing's own size in pixels
MIN_CONTRAST = 60.0  # nobody draws a white square on white: colours this close to the background are left out


def visible_on(background: tuple[int, int, int], color: str) -> bool:
    return float(np.linalg.norm(np.subtract(FILLS[color], background))) >= MIN_CONTRAST


@dataclass(frozen=True)
class Drawing:
    """Objects drawn with PIL's primitives on a flat ``background``."""

    objects: tuple[WorldObject, ...]
    background: tuple[int, int, int]

    def render(self, size: int = 128) -> Image.Image:
        img = Image.new("RGB", (CANVAS, CANVAS), self.background)
        draw = ImageDraw.Draw(img)
        for obj in self.objects:
            _shape(draw, obj, FILLS[obj.color])
        return img if size == CANVAS else img.resize((size, size), Image.BICUBIC)

    def masks(self, size: int = 128) -> np.ndarray:
        """Boolean masks, one per object, shape (n_objects, size, size)."""
        out = np.zeros((len(self.objects), size, size), dtype=bool)
        for i, obj in enumerate(self.objects):
            m = Image.new("L", (CANVAS, CANVAS), 0)
            _shape(ImageDraw.Draw(m), obj, 255)
            out[i] = np.asarray(m.resize((size, size), Image.NEAREST)) > 0
        return out


def _shape(draw: ImageDraw.ImageDraw, obj: WorldObject, fill) -> None:
    draw_shape(draw, obj.shape, obj.cx * CANVAS, obj.cy * CANVAS, obj.extent * CANVAS / 2, fill)


def draw_shape(draw: ImageDraw.ImageDraw, shape: str, cx: float, cy: float, r: float, fill, outline=None,
               width: int = 0) -> None:
    """One of the benchmark's shapes the way a slide's drawing tool makes it: centred at (cx, cy) pixels, ``r`` the
    half-side of its box, filled with ``fill`` and, with ``outline``, edged ``width`` pixels in it."""
    line = dict(outline=outline, width=width) if outline is not None else {}
    if shape == "circle":
        draw.ellipse((cx - 0.9 * r, cy - 0.9 * r, cx + 0.9 * r, cy + 0.9 * r), fill=fill, **line)
    elif shape == "square":
        draw.rectangle((cx - 0.8 * r, cy - 0.8 * r, cx + 0.8 * r, cy + 0.8 * r), fill=fill, **line)
    elif shape == "triangle":
        draw.regular_polygon((cx, cy + 0.1 * r, r), 3, fill=fill, **line)
    elif shape == "star":
        angles = -np.pi / 2 + np.arange(10) * np.pi / 5
        radii = np.where(np.arange(10) % 2 == 0, r, r * 0.5)
        draw.polygon([(cx + q * np.cos(a), cy + q * np.sin(a)) for a, q in zip(angles, radii)], fill=fill, **line)
    else:
        raise ValueError(f"a drawing holds the benchmark's shapes only, not {shape!r}")
