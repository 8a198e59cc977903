"""Drawings on canvases of a slide's or a phone's proportions, and drawings of small shapes: the looks a person's
picture has that the world's square scenes never do.

The ``wide`` split draws the world's objects on canvases of 4:3, 16:10, 16:9 and portrait 3:4 and 9:16, spread across
the whole canvas (near its sides too, where a centre crop cuts); the ``small`` split draws them at 6 to 12% (small
objects) or 9 to 18% (large ones) of the canvas's shorter side, on square and wide canvases alike. Both draw with
``world.drawings``' primitives (another renderer than the world's), on paper colours no training look is made of,
outlined or not, smoothed or not, saved as JPEG or not: looks the project chooses its view of a picture on
(``val-wide``, ``val-small``) and reports on (``wide``, ``small``).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, replace

import numpy as np
from PIL import Image, ImageDraw

from explorer.world.drawings import draw_shape
from explorer.world.palette import FILLS, SIZES
from explorer.world.scene import WorldObject

RGB = tuple[int, int, int]
CANVAS_SPLITS: tuple[str, ...] = ("wide", "small")
# paper a slide or a drawing app starts from: white, cream, pale blue, pale yellow, light grey, steel and dark slate
PAPERS: tuple[RGB, ...] = ((255, 255, 255), (250, 246, 228), (226, 236, 250), (255, 250, 205), (236, 236, 236),
                           (200, 214, 230), (38, 44, 56))
MIN_CONTRAST = 60.0  # as on a drawing: no colour this close to the paper
SHORT_SIDE = 360  # every canvas's shorter side, in pixels
ASPECTS: dict[str, tuple[tuple[int, int], ...]] = {  # (width, height) ratios each split draws from
    "wide": ((4, 3), (16, 10), (16, 9), (3, 4), (9, 16)),
    "small": ((1, 1), (4, 3), (16, 10), (16, 9), (3, 4)),
}
SMALL_SCALE = (0.25, 0.5)  # the small split's objects at this share of the world's size (0.24 or 0.36 of a side)
SMOOTH = 3  # a smoothed canvas is drawn this many times larger, then resized down


@dataclass(frozen=True)
class CanvasLook:
    """How a canvas is drawn: its size in pixels, its paper, how large its objects are against the world's, an
    outline (a darker edge of each object's own colour), smooth edges and a JPEG round trip."""

    size: tuple[int, int]
    paper: RGB
    scale: float = 1.0
    outline: bool = False
    smooth: bool = False
    jpeg: int | None = None


@dataclass(frozen=True)
class Canvas:
    """The world's objects drawn on a canvas: an object's centre at (cx, cy) of its width and height, its box's side
    ``extent`` x ``scale`` of the canvas's shorter side. Drawn at its own size (``size`` is the world's render size
    and is not used: a picture that is not square reaches the model as a user's file does)."""

    objects: tuple[WorldObject, ...]
    look: CanvasLook

    def _draw(self, factor: int, paint) -> Image.Image:
        (w, h), short = self.look.size, min(self.look.size)
        mode, paper = ("L", 0) if paint is None else ("RGB", self.look.paper)
        img = Image.new(mode, (w * factor, h * factor), paper)
        draw = ImageDraw.Draw(img)
        for obj in self.objects:
            r = obj.extent * self.look.scale * short * factor / 2
            fill = 255 if paint is None else paint(obj)
            edge = None if paint is None or not self.look.outline else tuple(int(v * 0.55) for v in fill)
            draw_shape(draw, obj.shape, obj.cx * w * factor, obj.cy * h * factor, r, fill, edge,
                       max(1, round(short * factor / 120)) if edge else 0)
        return img

    def render(self, size: int = 0) -> Image.Image:
        factor = SMOOTH if self.look.smooth else 1
        img = self._draw(factor, lambda obj: FILLS[obj.color])
        if factor > 1:
            img = img.resize(self.look.size, Image.Resampling.BOX)
        if self.look.jpeg is not None:
            buf = io.BytesIO()
            img.save(buf, "JPEG", quality=self.look.jpeg)
            img = Image.open(io.BytesIO(buf.getvalue())).convert("RGB")
        return img

    def masks(self, size: int = 0) -> np.ndarray:
        """Boolean masks, one per object, of the canvas's own size: (n_objects, height, width)."""
        w, h = self.look.size
        out = np.zeros((len(self.objects), h, w), dtype=bool)
        for i, obj in enumerate(self.objects):
            out[i] = np.asarray(Canvas((obj,), self.look)._draw(1, None)) > 0
        return out


def _visible(paper: RGB, colours: list[str]) -> bool:
    return all(float(np.linalg.norm(np.subtract(FILLS[c], paper))) >= MIN_CONTRAST for c in colours)


def canvas_look(rng: np.random.Generator, split: str, colours: list[str]) -> CanvasLook:
    """A random look of ``split`` (``wide`` or ``small``) whose paper every one of ``colours`` stands out from."""
    if split not in ASPECTS:
        raise ValueError(f"unknown canvas split {split!r}; known: {', '.join(ASPECTS)}")
    aw, ah = ASPECTS[split][rng.integers(len(ASPECTS[split]))]
    size = (round(SHORT_SIDE * aw / min(aw, ah)), round(SHORT_SIDE * ah / min(aw, ah)))
    papers = [p for p in PAPERS if _visible(p, colours)]
    paper = papers[rng.integers(len(papers))]
    scale = float(rng.uniform(*SMALL_SCALE)) if split == "small" else 1.0
    jpeg = int(rng.integers(70, 96)) if rng.random() < 0.5 else None
    return CanvasLook(size, paper, scale, bool(rng.random() < 0.5), bool(rng.random() < 0.5), jpeg)


def _spread(value: float, length: int, look: CanvasLook) -> float:
    """A centre's share of one side, from the world's range of centres to the canvas's whole range on that side
    (the same order and at least as far apart: a wide canvas's objects reach its sides)."""
    world_half = max(SIZES.values()) / 2 + 0.02
    half = max(SIZES.values()) * look.scale * min(look.size) / length / 2 + 0.02
    share = float(np.clip((value - world_half) / (1 - 2 * world_half), 0, 1))
    return half + share * (1 - 2 * half)


def canvas_pictures(rng: np.random.Generator, split: str, *objects: tuple[WorldObject, ...]) -> tuple[Canvas, ...]:
    """Each tuple of objects on a canvas of ``split``; an item's pictures share one look. The objects' centres are
    spread from the world's square over the whole canvas, in the same order and as far apart or more."""
    colours = sorted({o.color for objs in objects for o in objs})
    look = canvas_look(rng, split, colours)
    (w, h) = look.size
    return tuple(Canvas(tuple(replace(o, cx=_spread(o.cx, w, look), cy=_spread(o.cy, h, look)) for o in objs), look)
                 for objs in objects)
