"""Scenes: objects in unit coordinates, rendered (and masked) at any pixel size."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from PIL import Image, ImageDraw

from explorer.world.looks import WORLD_LOOK, WORLD_PROPORTIONS, Look, Proportions
from explorer.world.palette import BACKGROUND, EXTRA_SHAPES, FILLS, OUTLINE, SHAPES, SIZES, Combo, Style


@dataclass(frozen=True)
class WorldObject:
    """One flat shape: its concepts and its centre in unit coordinates."""

    color: str
    shape: str
    size: str
    cx: float
    cy: float

    @property
    def combo(self) -> Combo:
        return (self.color, self.shape)

    @property
    def extent(self) -> float:
        return SIZES[self.size]

    @property
    def box(self) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) in unit coordinates."""
        h = self.extent / 2
        return (self.cx - h, self.cy - h, self.cx + h, self.cy + h)

    def phrase(self, with_size: bool = False, omit: Literal["color", "shape"] | None = None) -> str:
        """"a (large) red square"; ``omit`` leaves out the colour ("a square") or names no shape ("a red shape")."""
        color = [] if omit == "color" else [self.color]
        shape = "shape" if omit == "shape" else self.shape
        words = ([self.size] if with_size else []) + color + [shape]
        return f"{article(words[0])} {' '.join(words)}"


@dataclass(frozen=True)
class Scene:
    objects: tuple[WorldObject, ...]
    style: Style = "plain"
    paints: tuple[tuple[int, int, int], ...] = ()  # RGB per object, drawn instead of its colour's (unnamed, varied)
    look: Look = WORLD_LOOK  # background, edges, noise and the rest (``world.looks``)

    def render(self, size: int = 128) -> Image.Image:
        look = self.look
        side, _ = look.work_side(size)
        img = look.canvas(side)
        draw = ImageDraw.Draw(img)
        fills = self.paints or [FILLS[obj.color] for obj in self.objects]
        for obj, fill in zip(self.objects, fills):
            if look.strokes:
                _draw(draw, obj, side, None, fill, look, stroke=round(side * 0.03))
            else:
                _draw(draw, obj, side, fill, OUTLINE if self.style == "shift" else None, look)
        img = look.finish(img, size)
        return img.convert("L").convert("RGB") if self.style == "grey" else img

    def masks(self, size: int = 128) -> np.ndarray:
        """Boolean masks, one per object (its whole shape, a line drawing's too), shape (n_objects, size, size)."""
        out = np.zeros((len(self.objects), size, size), dtype=bool)
        for i, obj in enumerate(self.objects):
            m = Image.new("L", (size, size), 0)
            _draw(ImageDraw.Draw(m), obj, size, 255, 255 if self.style == "shift" else None, self.look)
            out[i] = np.asarray(m) > 0
        return out

    def pixel_boxes(self, size: int = 128) -> list[tuple[int, int, int, int]]:
        return [tuple(int(round(v * size)) for v in o.box) for o in self.objects]  # type: ignore[misc]



BACKGROUND_TOLERANCE = 24.0  # RGB distance within which a pixel counts as the world's grey


def background_share(image: Image.Image, side: int = 128) -> float:
    """The share of the image's outer frame (2 px at ``side``) in the world's background grey: 1.0 for every world
    scene (no object touches the frame), near 0 for a photo or a drawing on another background."""
    pixels = np.asarray(image.convert("RGB").resize((side, side)), dtype=float)
    frame = np.concatenate([pixels[:2].reshape(-1, 3), pixels[-2:].reshape(-1, 3), pixels[2:-2, :2].reshape(-1, 3),
                            pixels[2:-2, -2:].reshape(-1, 3)])
    return float((np.linalg.norm(frame - BACKGROUND, axis=1) < BACKGROUND_TOLERANCE).mean())


FLAT_TOLERANCE = 20.0  # RGB distance from its side's smooth fit within which a frame pixel counts as flat
FRAME_FIT_DEGREE = 3  # each side of the frame fitted by a cubic: an even fade or a mottled background follows it


def flat_frame(image: Image.Image, side: int = 128) -> float:
    """The share of the image's outer frame (2 px at ``side``) that lies on a plain background, flat, evenly fading or
    mottled: each side of the frame fitted by a cubic per channel, a pixel within ``FLAT_TOLERANCE`` of the fit counts.
    A drawing on any plain background scores near 1.0 (noise, JPEG and the varied looks' mottling included: 0.89 at
    the least over 60 training renders), a photo far less (0.26 to 0.66 on four of scikit-image's)."""
    pixels = np.asarray(image.convert("RGB").resize((side, side), Image.BILINEAR), dtype=float)
    strips = [pixels[:2].mean(0), pixels[-2:].mean(0), pixels[:, :2].mean(1), pixels[:, -2:].mean(1)]
    t = np.arange(side, dtype=float) / side
    flat = []
    for strip in strips:  # (side, 3)
        fit = np.polynomial.polynomial.polyval(t, np.polynomial.polynomial.polyfit(t, strip, FRAME_FIT_DEGREE)).T
        flat.append(np.linalg.norm(strip - fit, axis=1) < FLAT_TOLERANCE)
    return float(np.mean(flat))


def article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def _draw(draw: ImageDraw.ImageDraw, obj: WorldObject, size: int, fill, outline, look: Look = WORLD_LOOK,
          stroke: int = 0) -> None:
    """One object: filled with ``fill`` (None: not filled), its edge in ``outline`` (``stroke`` pixels wide, or the
    shift style's width), in the look's proportions, turned its ``tilt`` degrees about its centre."""
    tilt = look.tilt
    x0, y0, x1, y1 = _shrunk(*(v * size for v in obj.box), look.proportions.fill)
    width = max(1, stroke or round(size / 64)) if outline is not None else 0
    if obj.shape == "ring":
        colour = fill if fill is not None else outline
        draw.ellipse((x0, y0, x1, y1), outline=colour, width=max(1, round((x1 - x0) * 0.18)))
    elif obj.shape == "circle" or (obj.shape == "oval" and not tilt):
        inset = (x1 - x0) * 0.22 if obj.shape == "oval" else 0
        draw.ellipse((x0 + inset, y0, x1 - inset, y1), fill=fill, outline=outline, width=width)
    else:
        corners = _polygon(obj.shape, x0, y0, x1, y1, look.proportions)
        draw.polygon(_turned(corners, (x0 + x1) / 2, (y0 + y1) / 2, tilt) if tilt else corners, fill=fill,
                     outline=outline, width=width)


def _turned(corners: list[tuple[float, float]], cx: float, cy: float, degrees: float) -> list[tuple[float, float]]:
    c, s = np.cos(np.radians(degrees)), np.sin(np.radians(degrees))
    return [(cx + (x - cx) * c - (y - cy) * s, cy + (x - cx) * s + (y - cy) * c) for x, y in corners]


def _shrunk(x0: float, y0: float, x1: float, y1: float, share: float) -> tuple[float, float, float, float]:
    """The box (x0, y0, x1, y1) scaled by ``share`` about its centre (the very same box at 1.0)."""
    if share == 1.0:
        return x0, y0, x1, y1
    cx, cy, hx, hy = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 2 * share, (y1 - y0) / 2 * share
    return cx - hx, cy - hy, cx + hx, cy + hy


def _polygon(shape: str, x0: float, y0: float, x1: float, y1: float,
             p: Proportions = WORLD_PROPORTIONS) -> list[tuple[float, float]]:
    """The corners of a polygonal shape drawn in the box (x0, y0, x1, y1), triangles and stars in proportions ``p``."""
    cx, cy, r = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 2
    if shape == "oval":  # as a polygon only when turned (upright, it is drawn as an ellipse)
        a = np.linspace(0, 2 * np.pi, 36, endpoint=False)
        return [(cx + r * 0.56 * np.cos(t), cy + r * np.sin(t)) for t in a]
    if shape == "square":
        s = r * 0.88
        return [(cx - s, cy - s), (cx + s, cy - s), (cx + s, cy + s), (cx - s, cy + s)]
    if shape == "triangle":
        left, _, right, _ = _shrunk(x0, y0, x1, y1, p.width)
        return [(cx + (p.apex - 0.5) * (x1 - x0), y0), (right, y1 - r * p.base), (left, y1 - r * p.base)]
    if shape in ("star", "hexagon"):
        corners = {"star": 10, "hexagon": 6}[shape]
        angles = np.pi / 2 + np.arange(corners) * 2 * np.pi / corners
        if shape == "star" and p.star_turn:
            angles = angles + np.radians(p.star_turn)
        radii = np.where(np.arange(corners) % 2 == 0, r, r * p.star_depth) if shape == "star" else np.full(corners, r)
        return [(cx + rr * np.cos(a), cy - rr * np.sin(a)) for a, rr in zip(angles, radii)]
    if shape == "cross":
        t = r * 0.35
        return [(cx - t, y0), (cx + t, y0), (cx + t, cy - t), (x1, cy - t), (x1, cy + t), (cx + t, cy + t),
                (cx + t, y1), (cx - t, y1), (cx - t, cy + t), (x0, cy + t), (x0, cy - t), (cx - t, cy - t)]
    if shape == "diamond":
        return [(cx, y0), (cx + r * 0.6, cy), (cx, y1), (cx - r * 0.6, cy)]
    if shape == "arrow":
        t = r * 0.3
        return [(x0, cy - t), (cx, cy - t), (cx, y0 + r * 0.2), (x1, cy), (cx, y1 - r * 0.2), (cx, cy + t),
                (x0, cy + t)]
    if shape == "bar":
        return [(x0, cy - r * 0.3), (x1, cy - r * 0.3), (x1, cy + r * 0.3), (x0, cy + r * 0.3)]
    if shape == "chevron":
        t = r * 0.45
        return [(x0, y0 + t), (cx, y1 - t - r * 0.45), (x1, y0 + t), (x1, y0 + 2 * t), (cx, y1 - r * 0.2),
                (x0, y0 + 2 * t)]
    if shape == "trapezoid":
        return [(cx - r * 0.45, y0 + r * 0.3), (cx + r * 0.45, y0 + r * 0.3), (x1, y1 - r * 0.3), (x0, y1 - r * 0.3)]
    if shape == "heart":
        t = np.linspace(0, 2 * np.pi, 40, endpoint=False)
        hx, hy = 16 * np.sin(t) ** 3, 13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t)
        return [(cx + r * x / 17, cy - r * (y + 2.5) / 17) for x, y in zip(hx, hy)]
    if shape == "crescent":  # the unit disc less a disc of radius 0.8 centred 0.5 to its right
        meet = np.arccos(0.61)  # where the two circles cross, as an angle on the outer one
        outer = np.linspace(meet, 2 * np.pi - meet, 24)
        inner = np.linspace(2 * np.pi - np.arctan2(0.79, 0.11), np.arctan2(0.79, 0.11), 24)
        return [(cx + r * np.cos(a), cy - r * np.sin(a)) for a in outer] + [
            (cx + r * (0.5 + 0.8 * np.cos(a)), cy - r * 0.8 * np.sin(a)) for a in inner]
    if shape == "semicircle":
        a = np.linspace(0, np.pi, 24)
        return [(cx + r * np.cos(t), cy + r * 0.4 - r * np.sin(t)) for t in a]
    if shape == "parallelogram":
        return [(x0 + r * 0.6, cy - r * 0.55), (x1, cy - r * 0.55), (x1 - r * 0.6, cy + r * 0.55), (x0, cy + r * 0.55)]
    if shape == "hourglass":
        return [(x0 + r * 0.15, y0), (x1 - r * 0.15, y0), (cx + r * 0.1, cy), (x1 - r * 0.15, y1), (x0 + r * 0.15, y1),
                (cx - r * 0.1, cy)]
    if shape == "kite":
        return [(cx, y0), (cx + r * 0.7, cy - r * 0.3), (cx, y1), (cx - r * 0.7, cy - r * 0.3)]
    if shape == "house":
        return [(cx, y0), (x1 - r * 0.1, cy - r * 0.2), (x1 - r * 0.1, y1), (x0 + r * 0.1, y1),
                (x0 + r * 0.1, cy - r * 0.2)]
    raise ValueError(f"unknown shape {shape!r}; known: {', '.join(SHAPES + EXTRA_SHAPES)}")

