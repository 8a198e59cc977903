"""World objects drawn to cover exactly the same number of pixels, whatever their shape.

In the world's own proportions a triangle covers about 60% of a circle's pixels, so a scene and its colour swap hold
different amounts of each colour, and an encoder that sees only how much of each colour a picture holds tells them
apart without binding anything. The binding pictures draw every object at exactly ``target_pixels(size)`` pixels of
the picture the model reads: its box scaled so that its shape covers about as many pixels as a circle's, then the
few pixels over or under taken from or added to its edge (farthest from its centre first, nearest first), on the
world's grey with hard edges, as its default look draws. So a scene and its swap hold the same share of each
colour, to the pixel.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

import numpy as np
from PIL import Image
from scipy import ndimage

from explorer import world

EXTENT = 0.30  # a circle's box, as a share of the picture's side: between the world's small and large (0.24, 0.36),
# so that two triangles of the same area (a box 1.3 times as wide) fit side by side in every place
SEARCH_STEPS = 30  # bisection steps on an object's extent


@dataclass(frozen=True)
class SizedObject(world.WorldObject):
    """A world object whose box has the extent given (a share of the picture's side), not its size name's."""

    side: float = EXTENT

    @property
    def extent(self) -> float:
        return self.side


def drawn(obj: world.WorldObject, size: int) -> np.ndarray:
    """The pixels ``obj`` covers in a ``size`` x ``size`` picture of the world's default look (bool, size x size)."""
    return world.Scene((obj,)).masks(size)[0]


@functools.lru_cache(maxsize=None)
def target_pixels(size: int) -> int:
    """Every binding object's pixel count at ``size``: a circle's of box ``EXTENT``, centred."""
    return int(drawn(SizedObject("red", "circle", "large", 0.5, 0.5), size).sum())


@functools.lru_cache(maxsize=None)
def shape_scale(shape: str) -> float:
    """How much larger than a circle's the box of ``shape`` must be to cover as many pixels (at 512 px)."""
    return float(np.sqrt(drawn(SizedObject("red", "circle", "large", 0.5, 0.5), 512).sum() /
                         drawn(SizedObject("red", shape, "large", 0.5, 0.5), 512).sum()))


def mask(obj: world.WorldObject, size: int) -> np.ndarray:
    """The pixels of ``obj`` (its colour ignored) at the extent nearest ``target_pixels(size)``, trimmed or grown at
    its edge to exactly that many."""
    target, base = target_pixels(size), EXTENT * shape_scale(obj.shape)
    sized = SizedObject(obj.color, obj.shape, obj.size, obj.cx, obj.cy, base)
    low, high = 0.8 * base, 1.2 * base
    for _ in range(SEARCH_STEPS):
        mid = (low + high) / 2
        low, high = (mid, high) if drawn(replace(sized, side=mid), size).sum() < target else (low, mid)
    m = drawn(replace(sized, side=high), size)
    yy, xx = np.mgrid[:size, :size]
    far = np.hypot(yy + 0.5 - obj.cy * size, xx + 0.5 - obj.cx * size)
    while (extra := int(m.sum()) - target) != 0:  # trim the farthest edge pixels, or grow the nearest
        edge = m & ~ndimage.binary_erosion(m) if extra > 0 else ndimage.binary_dilation(m) & ~m
        idx = np.flatnonzero(edge)
        idx = idx[np.argsort(far.flat[idx], kind="stable")]
        m.flat[(idx[::-1] if extra > 0 else idx)[: abs(extra)]] = extra < 0
    return m


def placed(rng: np.random.Generator, combos: list[tuple[str, str]]) -> list[SizedObject]:
    """Objects of the given (colour, shape) at random places, every object placed as the largest shape's box, so
    that the places do not depend on the shapes, and each object given one of the places at random: the world's
    ``place_objects`` puts its first box nearer the centre more often than its second, and the objects come in
    colour order, so without the shuffle where an object sits would follow its colour index."""
    box = EXTENT * max(shape_scale(s) for s in {s for _, s in combos} | set(world.SHAPES[:3])) * 1.02
    places = world.place_objects(rng, [box] * len(combos))
    places = [places[i] for i in rng.permutation(len(places))]
    return [SizedObject(c, s, "large", x, y, EXTENT * shape_scale(s)) for (c, s), (x, y) in zip(combos, places)]


def picture(objects, size: int) -> Image.Image:
    """Objects on the world's grey, each in its palette colour over exactly ``target_pixels(size)`` pixels."""
    pixels = np.empty((size, size, 3), dtype=np.uint8)
    pixels[:] = world.BACKGROUND
    for obj in objects:
        pixels[mask(obj, size)] = world.COLORS[obj.color]
    return Image.fromarray(pixels)
