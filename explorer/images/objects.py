"""Flat objects in a drawing, from the segmentation's regions: each object's core, its soft edge and its background.

Felzenszwalb (``regions.segment_regions``) splits a flat shape into its fill and thin bands along its edge, and a
gradient background into bands. Here a region that touches the picture's frame is background; one of about the colour
around it is background too, or the inside of a shape drawn as a line; one inside an object's box (grown by ``EDGE``
pixels) is that object's edge; any other region solid enough (or a line around a plain inside) is an object of its
own. An object that touches the frame is taken for background.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PIL import Image
from scipy import ndimage

from explorer.images.regions import Box, Region

EDGE = 4  # pixels: a region within this margin of an object's box is its blended edge
MIN_SHARE = 0.004  # of the picture's pixels: a smaller region is a speck, never an object of its own
MIN_SOLIDITY = 0.2  # share of its box a region fills: a thinner one is an edge ring, not an object
MIN_CONTRAST = 30.0  # RGB: a region closer than this to the colour around it is background (a line drawing's inside)
OUTLINED = 0.3  # a thin region whose box holds a plain region of this share of it is a line drawing
TOUCH = 2  # pixels: two objects whose masks come this close touch


@dataclass(frozen=True, eq=False)
class FoundObject:
    """One flat object: its whole mask (fill and blended edge), its fill, its box, and the colours of both."""

    mask: np.ndarray  # (H, W) bool
    core: np.ndarray  # (H, W) bool: the fill, the largest region of the object
    box: Box
    rgb: tuple[int, int, int]  # the fill's median colour
    background: tuple[int, int, int]  # the median colour of a ring just outside the object


@dataclass(frozen=True)
class Found:
    """The objects of a picture, largest first, the pairs of them that touch (indices), and the boxes of its lines of
    text (a title, a label, a footer: never objects)."""

    objects: tuple[FoundObject, ...]
    touching: tuple[tuple[int, int], ...]
    text: tuple[Box, ...] = ()
    page: bool = False  # read as a person reads a page (``ink.ink_objects``): an object is its silhouette in its fill


def _median(pixels: np.ndarray, where: np.ndarray) -> tuple[int, int, int]:
    values = np.median(pixels[where], axis=0) if where.any() else np.zeros(3)
    return (int(values[0]), int(values[1]), int(values[2]))


def box_of(mask: np.ndarray) -> Box:
    """The tight box (x0, y0, x1, y1, ends exclusive) of a non-empty mask (H, W)."""
    ys, xs = np.nonzero(mask)
    return (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)


def _touches_frame(mask: np.ndarray) -> bool:
    return bool(mask[0].any() or mask[-1].any() or mask[:, 0].any() or mask[:, -1].any())


def _inside(box: Box, outer: Box, margin: int) -> bool:
    return (box[0] >= outer[0] - margin and box[1] >= outer[1] - margin and box[2] <= outer[2] + margin
            and box[3] <= outer[3] + margin)


def _ring(mask: np.ndarray, near: int, far: int) -> np.ndarray:
    return ndimage.binary_dilation(mask, iterations=far) & ~ndimage.binary_dilation(mask, iterations=near)


def _object(pixels: np.ndarray, mask: np.ndarray, core: np.ndarray, background: tuple[int, int, int]) -> FoundObject:
    """The object whose regions are ``mask``: its box is that of the pixels at least a quarter of the way from the
    background's colour to its fill's (the fill's region stops short of a soft edge)."""
    rgb = _median(pixels, core)
    share = blend(pixels, background, rgb)
    return FoundObject(mask, core, box_of((share > 0.25) & mask | core), rgb, background)


def along(pixels: np.ndarray, background: tuple[int, int, int], fill: tuple[int, int, int]) -> np.ndarray:
    """How far each pixel of ``pixels`` (..., 3) lies from ``background`` towards ``fill`` on the line through the two
    colours: 0 at the background, 1 at the fill, more beyond it."""
    towards = np.subtract(fill, background, dtype=float)
    return (pixels - np.asarray(background, dtype=float)) @ towards / max(1.0, float(towards @ towards))


def blend(pixels: np.ndarray, background: tuple[int, int, int], fill: tuple[int, int, int]) -> np.ndarray:
    """How far each pixel of ``pixels`` (H, W, 3) lies from ``background`` towards ``fill``: (H, W), 0 to 1, along
    the line between the two colours."""
    return np.clip(along(pixels, background, fill), 0.0, 1.0)


def off_blend(pixels: np.ndarray, background: tuple[int, int, int], fill: tuple[int, int, int],
              beyond: bool = False) -> np.ndarray:
    """Each pixel's RGB distance from the blends of ``background`` and ``fill`` (a soft edge lies on them); with
    ``beyond``, from their line past the fill too (a deeper shade of the fill lies on it)."""
    share = along(pixels, background, fill)
    share = share if beyond else np.clip(share, 0.0, 1.0)
    rel = pixels - np.asarray(background, dtype=float)
    return np.linalg.norm(rel - share[..., None] * np.subtract(fill, background, dtype=float), axis=-1)


def _outlines(region: Region, insides: list[Region]) -> bool:
    """Whether a thin region is a shape drawn as a line: a plain region fills much of its box, inside it."""
    return any(_inside(inner.box, region.box, 0) and inner.area >= OUTLINED * region.area for inner in insides)


def find_objects(image: Image.Image, regions: list[Region]) -> Found:
    """The flat objects among ``regions`` (segmentation masks of ``image``, largest first)."""
    pixels = np.asarray(image.convert("RGB"), dtype=float)
    least = MIN_SHARE * pixels.shape[0] * pixels.shape[1]
    cores: list[Region] = []
    members: list[list[np.ndarray]] = []
    insides: list[Region] = []  # plain regions: background, or the inside of a shape drawn as a line
    for region in regions:
        if region.mask is None or _touches_frame(region.mask):
            continue
        around = _median(pixels, _ring(region.mask, EDGE + 3, EDGE + 7))  # past its edge, or a line drawing's line
        if np.linalg.norm(np.subtract(_median(pixels, region.mask), around)) < MIN_CONTRAST:
            insides.append(region)
            continue
        home = next((i for i, core in enumerate(cores) if _inside(region.box, core.box, EDGE)), None)
        if home is not None:
            members[home].append(region.mask)
        elif region.mask.sum() >= least and (region.mask.sum() / max(1, region.area) >= MIN_SOLIDITY
                                             or _outlines(region, insides)):
            cores.append(region)
            members.append([region.mask])
    masks = [np.logical_or.reduce(group) for group in members]
    taken = np.logical_or.reduce(masks) if masks else np.zeros(pixels.shape[:2], bool)
    found = [_object(pixels, mask, core.mask, _median(pixels, _ring(mask, 2, 5) & ~taken))
             for mask, core in zip(masks, cores)]
    objects = tuple(o for o in found if np.linalg.norm(np.subtract(o.rgb, o.background)) >= MIN_CONTRAST)
    masks = [o.mask for o in objects]
    grown = [ndimage.binary_dilation(m, iterations=TOUCH) for m in masks]
    touching = tuple((i, j) for i in range(len(masks)) for j in range(i + 1, len(masks)) if (grown[i] & masks[j]).any())
    return Found(objects, touching)
