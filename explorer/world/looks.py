"""How a scene is drawn: the world's own look (flat fills, hard edges, grey) or one of the varied looks a person's
drawing may have (any background, smooth edges, line drawings, noise, JPEG, other sizes, tilted objects, shapes in
other proportions, mottled backgrounds).

Training draws varied looks from ``random_look``; the ``style`` split draws from ``style_look``, whose backgrounds
come from a band of hues (``HELD_OUT_HUES``) and a style (two-colour gradients) that no training look uses.
"""

from __future__ import annotations

import colorsys
import io
from dataclasses import dataclass

import numpy as np
from PIL import Image
from scipy import ndimage

from explorer.world.palette import BACKGROUND

RGB = tuple[int, int, int]
HELD_OUT_HUES = (0.45, 0.58)  # hues (0-1) of the style split's coloured backgrounds: cyan to azure, never trained on
SATURATED = 0.2  # a colour this saturated or more has a hue (greys and near-greys have none)
MIN_CONTRAST = 80.0  # RGB distance every object's fill keeps from the background
PAINT_JITTER = 18  # a varied look's objects are painted up to this far (per channel) from their colour's RGB
SMOOTH_MAX = 512  # smooth edges are drawn at up to 4x (at most this many pixels a side), then box-filtered down


@dataclass(frozen=True)
class Proportions:
    """How the world's triangles and stars are proportioned, and how much of its box a shape fills. ``Proportions()``
    is the world's own; a varied look draws other ones, as people's triangles and stars differ (``world.drawings``)."""

    fill: float = 1.0  # every shape drawn in this share of its box, about the box's centre
    apex: float = 0.5  # a triangle's top corner, this share of its box's width from the left
    base: float = 0.15  # a triangle's base, this share of the box's half-side above the box's bottom
    width: float = 1.0  # a triangle's base, this share of its box's width
    star_depth: float = 0.45  # a star's inner corners, this share of its points' radius
    star_turn: float = 0.0  # a star's points turned this many degrees within it (``Look.tilt`` turns the whole object)


WORLD_PROPORTIONS = Proportions()


@dataclass(frozen=True)
class Look:
    """Everything about a picture that is not its objects. ``Look()`` is the world's own: grey, flat, hard edges."""

    background: RGB = BACKGROUND
    gradient_to: RGB | None = None  # the background fades to this colour from top to bottom (style split only)
    strokes: bool = False  # a line drawing: each object's outline in its colour, no fill
    smooth: bool = False  # anti-aliased edges
    noise: float = 0.0  # standard deviation of Gaussian pixel noise, 0-255
    jpeg: int | None = None  # a JPEG round trip at this quality
    scale: float = 1.0  # drawn at this many times the size asked, then resized to it
    tilt: float = 0.0  # every object turned by this many degrees
    proportions: Proportions = WORLD_PROPORTIONS
    texture: float = 0.0  # a mottled background: up to this far (RGB, each channel alike) from its colour; 0 flat
    seed: int = 0  # the noise's

    def canvas(self, side: int) -> Image.Image:
        if self.gradient_to is None and not self.texture:
            return Image.new("RGB", (side, side), self.background)
        t = np.linspace(0.0, 1.0, side)[:, None, None]
        to = self.background if self.gradient_to is None else self.gradient_to
        pixels = np.repeat((1 - t) * np.array(self.background) + t * np.array(to), side, axis=1)
        if self.texture:
            pixels = pixels + self.texture * _mottle(side, self.seed)[:, :, None]
        return Image.fromarray(pixels.clip(0, 255).round().astype(np.uint8))

    def work_side(self, size: int) -> tuple[int, int]:
        """(the side objects are drawn at, the side the picture has before its final resize) for ``size``."""
        drawn = size if self.scale == 1.0 else max(16, round(size * self.scale))
        if not self.smooth:
            return drawn, drawn
        return drawn * max(1, min(4, SMOOTH_MAX // drawn)), drawn

    def finish(self, img: Image.Image, size: int) -> Image.Image:
        """The drawn picture after smoothing, noise and JPEG, at ``size``."""
        _, drawn = self.work_side(size)
        if img.size[0] != drawn:
            img = img.reduce(img.size[0] // drawn)
        if self.noise > 0:
            pixels = np.asarray(img, dtype=np.float32)
            pixels = pixels + np.random.default_rng(self.seed).normal(0.0, self.noise, pixels.shape)
            img = Image.fromarray(pixels.clip(0, 255).round().astype(np.uint8))
        if self.jpeg is not None:
            buffer = io.BytesIO()
            img.save(buffer, format="JPEG", quality=self.jpeg)
            img = Image.open(io.BytesIO(buffer.getvalue())).convert("RGB")
        return img if drawn == size else img.resize((size, size), Image.BICUBIC)


WORLD_LOOK = Look()
MOTTLE_CELLS = 5  # a mottled background's random field: this many cells a side, smoothly interpolated


def _mottle(side: int, seed: int) -> np.ndarray:
    """A smooth random field in [-1, 1] over a ``side`` x ``side`` picture."""
    cells = np.random.default_rng(seed + 1).uniform(-1.0, 1.0, (MOTTLE_CELLS, MOTTLE_CELLS))
    return ndimage.zoom(cells, side / MOTTLE_CELLS, order=3, mode="nearest")[:side, :side].clip(-1.0, 1.0)


def hue_held_out(rgb: RGB) -> bool:
    """Whether a colour is saturated enough to have a hue, and that hue lies in the held-out band."""
    h, s, _ = colorsys.rgb_to_hsv(*(c / 255 for c in rgb))
    return s >= SATURATED and HELD_OUT_HUES[0] <= h < HELD_OUT_HUES[1]


def _hsv(h: float, s: float, v: float) -> RGB:
    r, g, b = colorsys.hsv_to_rgb(h, s, v)
    return (round(r * 255), round(g * 255), round(b * 255))


def _clear_of(rgb: RGB, fills: list[RGB]) -> bool:
    return all(np.linalg.norm(np.subtract(rgb, f)) >= MIN_CONTRAST for f in fills)


def _training_background(rng: np.random.Generator) -> RGB:
    """A grey level anywhere from black to white (half the time), or a colour whose hue is outside the held-out band
    (drawn again if rounding to RGB moved it in)."""
    if rng.random() < 0.5:
        v = int(rng.integers(0, 256))
        return (v, v, v)
    width = HELD_OUT_HUES[1] - HELD_OUT_HUES[0]
    while True:
        hue = (HELD_OUT_HUES[1] + rng.uniform(0, 1 - width)) % 1.0
        rgb = _hsv(hue, rng.uniform(SATURATED, 1.0), rng.uniform(0.15, 1.0))
        if not hue_held_out(rgb):
            return rgb


def _style_background(rng: np.random.Generator) -> RGB:
    while True:
        rgb = _hsv(rng.uniform(*HELD_OUT_HUES), rng.uniform(0.3, 0.9), rng.uniform(0.35, 1.0))
        if hue_held_out(rgb):
            return rgb


def _pick(rng: np.random.Generator, draw, fills: list[RGB]) -> RGB:
    """A background from ``draw`` with every fill clear of it."""
    for _ in range(1000):
        rgb = draw(rng)
        if _clear_of(rgb, fills):
            return rgb
    raise RuntimeError(f"no background clear of the fills {fills}")


def _finish_options(rng: np.random.Generator) -> dict:
    """What varied looks share besides their background: edges, line drawing, noise, JPEG, size, tilt."""
    return {"strokes": bool(rng.random() < 0.15), "smooth": bool(rng.random() < 0.5),
            "noise": float(rng.uniform(2, 10)) if rng.random() < 0.3 else 0.0,
            "jpeg": int(rng.integers(35, 91)) if rng.random() < 0.3 else None,
            "scale": float(rng.uniform(0.5, 2.0)) if rng.random() < 0.4 else 1.0,
            "tilt": float(rng.uniform(-15, 15)) if rng.random() < 0.3 else 0.0,
            "seed": int(rng.integers(2**31))}


def _varied_proportions(rng: np.random.Generator) -> Proportions:
    """Triangles and stars in other proportions than the world's, in a smaller share of their boxes."""
    return Proportions(fill=float(rng.uniform(0.7, 1.0)), apex=float(rng.uniform(0.25, 0.75)),
                       base=float(rng.uniform(0.0, 0.5)), width=float(rng.uniform(0.7, 1.0)),
                       star_depth=float(rng.uniform(0.3, 0.62)), star_turn=float(rng.uniform(-36.0, 36.0)))


def random_look(rng: np.random.Generator, fills: list[RGB]) -> Look:
    """A training look: a background clear of every fill (no held-out hue, no gradient; mottled 30% of the time), the
    shared options and shapes in varied proportions (the ``style`` split keeps the world's proportions and flat or
    two-colour backgrounds, so that it measures held-out backgrounds alone)."""
    return Look(background=_pick(rng, _training_background, fills), **_finish_options(rng),
                proportions=_varied_proportions(rng),
                texture=float(rng.uniform(8.0, 30.0)) if rng.random() < 0.3 else 0.0)


def style_look(rng: np.random.Generator, fills: list[RGB]) -> Look:
    """A ``style`` split look: a background in the held-out hue band, half the time a gradient between two of them."""
    background = _pick(rng, _style_background, fills)
    gradient_to = _pick(rng, _style_background, fills) if rng.random() < 0.5 else None
    return Look(background=background, gradient_to=gradient_to, **_finish_options(rng))


def jittered(rng: np.random.Generator, fills: list[RGB]) -> tuple[RGB, ...]:
    """Each fill moved up to ``PAINT_JITTER`` per channel: a person's red is not exactly the palette's."""
    moved = np.array(fills) + rng.integers(-PAINT_JITTER, PAINT_JITTER + 1, size=(len(fills), 3))
    return tuple((int(r), int(g), int(b)) for r, g, b in moved.clip(0, 255))
