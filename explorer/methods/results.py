"""What a method gives back, below every method: its ``Score`` with its evidence, a map per caption segment read off
that evidence (``Pointer``), and a ``Caution`` where the evidence is weak on a drawing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from explorer.images.regions import Box

MOSTLY_BACKGROUND = 5 / 6  # a region whose objects fill less than a sixth of it (it is 6 times their size) is canvas


@dataclass(frozen=True)
class Score:
    """How well ``caption`` matches the image by ``method``, with the evidence behind it (the method's own frozen
    dataclass)."""

    method: str
    caption: str
    value: float
    evidence: Any = None


@dataclass(frozen=True)
class Pointer:
    """A map over an (H, W) image, >= 0, and the pixel (x, y) it points at."""

    map: np.ndarray
    point: tuple[int, int]
    value: float | None = None  # the method's own number for what it points at (SGI: its crop's cosine), if it has one


Maps = dict[tuple[int, int], Pointer]  # a caption segment's character span -> its pointer


def peak(heat: np.ndarray) -> Pointer:
    """An (H, W) map pointing at its maximum."""
    y, x = np.unravel_index(int(np.argmax(heat)), heat.shape)
    return Pointer(heat, (int(x), int(y)))


def region(mask: np.ndarray, value: float | None = None) -> Pointer:
    """A uniform map over an (H, W) region (a crop or a subset), pointing at its centre of mass (``value``: the
    method's number for it)."""
    ys, xs = np.nonzero(mask)
    return Pointer(mask.astype(np.float32), (int(round(xs.mean())), int(round(ys.mean()))), value)


@dataclass(frozen=True)
class Caution:
    """One weak piece of evidence: the method it judges ("" for every method), the caption whose evidence it is
    (0: A, 1: B; -1: the picture's), the sentence the page shows beside the verdict, and the share behind it (of the
    region that is canvas, or of the attention that falls on the objects)."""

    method: str
    caption: int
    text: str
    share: float
    per_layer: tuple[float, ...] = ()  # a method with layers: the share of each layer's attention on the objects


def object_share(mask: np.ndarray, box: Box) -> float:
    """The share of ``box``'s pixels that the (H, W) objects ``mask`` covers."""
    x0, y0, x1, y1 = (max(0, v) for v in box)
    inside = mask[y0:y1, x0:x1]
    return float(inside.mean()) if inside.size else 0.0
