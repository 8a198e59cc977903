"""Image regions: multi-scale overlapping crops, segmentation proposals, SAM masks, and crops as PIL images."""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal, Sequence

import numpy as np
import torch
from PIL import Image
from torchvision.transforms import Resize

log = logging.getLogger(__name__)

Box = tuple[int, int, int, int]  # x0, y0, x1, y1 in pixels, exclusive ends
CropMode = Literal["resize", "mask"]
MIN_PATCH_COVER = 0.3  # a patch belongs to a region when this fraction of its pixels is in the mask
DEFAULT_SCALES: tuple[float, ...] = (1.0, 0.75, 0.5, 0.35, 0.25)
DEFAULT_STRIDE = 0.5
TILED_ASPECT = 4  # a side longer than this many times the other gets the windows of a side that long: a 1024 x 1
# picture would have 1024 one-pixel windows at every scale, each a crop through the image tower


@dataclass(frozen=True)
class Region:
    """A part of a picture: its box (x0, y0, x1, y1), what proposed it and, where known, its mask."""

    box: Box
    source: str  # "image", "crop", "segment", "sam", "world", "random"
    mask: np.ndarray | None = None  # boolean (H, W) where known

    @property
    def area(self) -> int:
        x0, y0, x1, y1 = self.box
        return (x1 - x0) * (y1 - y0)


def _positions(length: int, window: int, stride: float, most: int) -> list[int]:
    """Where windows start along a side: edge to edge, ``stride`` apart, or as many as a side ``most`` long has
    (spread evenly over this longer one)."""
    if window >= length:
        return [0]
    n = math.ceil((min(length, most) - window) / max(1.0, stride)) + 1
    return sorted({int(round(p)) for p in np.linspace(0, length - window, n)})


def multiscale_crops(
    width: int, height: int, scales: Sequence[float] = DEFAULT_SCALES, stride: float = DEFAULT_STRIDE
) -> list[Region]:
    """Square windows of side ``scale * min(width, height)``, overlapping by ``1 - stride``.

    The whole image always comes first; windows at each scale tile the image edge to edge. A side over
    ``TILED_ASPECT`` times the other has the windows of a side that long, spread over it (they overlap less): the
    count of a picture of any proportions is about that of a 4:1 one at most, and a picture up to 4:1 keeps every window.
    """
    if not scales or any(not 0 < s <= 1 for s in scales):
        raise ValueError(f"scales must be in (0, 1], got {list(scales)}")
    if not 0 < stride <= 1:
        raise ValueError(f"stride must be in (0, 1], got {stride}")
    regions = [Region((0, 0, width, height), "image")]
    seen = {regions[0].box}
    for s in sorted(scales, reverse=True):
        side = max(1, int(round(s * min(width, height))))
        step, most = side * stride, TILED_ASPECT * min(width, height)
        for y in _positions(height, side, step, most):
            for x in _positions(width, side, step, most):
                box = (x, y, min(width, x + side), min(height, y + side))
                if box not in seen:
                    seen.add(box)
                    regions.append(Region(box, "crop"))
    return regions


def fill_color(image: Image.Image) -> tuple[int, ...]:
    """The per-channel median: the background of a plain scene, a neutral grey-ish fill otherwise."""
    small = np.asarray(image.convert("RGB").resize((64, 64)))
    return tuple(int(v) for v in np.median(small.reshape(-1, 3), axis=0))


def crop_image(image: Image.Image, box: Box, mode: CropMode = "resize",
              fill: tuple[int, ...] | None = None) -> Image.Image:
    """What the encoder sees of a region.

    ``resize``: the box cut out and padded to a square (aspect kept), as published SGI does;
    ``mask``: the whole frame with everything outside the box filled, so objects keep their size.
    """
    fill = fill or fill_color(image)
    if mode == "mask":
        out = Image.new("RGB", image.size, fill)
        out.paste(image.crop(box), box[:2])
        return out
    if mode != "resize":
        raise ValueError(f"unknown crop mode {mode!r}: use 'resize' or 'mask'")
    crop = image.crop(box)
    side = max(crop.size)
    if crop.size == (side, side):
        return crop
    out = Image.new("RGB", (side, side), fill)
    out.paste(crop, ((side - crop.width) // 2, (side - crop.height) // 2))
    return out


def visible_extent(nonfill: np.ndarray, box: Box) -> Box | None:
    """The tight box of the pixels inside ``box`` that differ from the fill (``nonfill``, boolean (H, W)).

    Two boxes with the same extent have the same mask crop; None where the box holds only fill.
    """
    x0, y0, x1, y1 = box
    inside = nonfill[y0:y1, x0:x1]
    rows, cols = np.flatnonzero(inside.any(axis=1)), np.flatnonzero(inside.any(axis=0))
    if rows.size == 0:
        return None
    return (x0 + int(cols[0]), y0 + int(rows[0]), x0 + int(cols[-1]) + 1, y0 + int(rows[-1]) + 1)


def _box_of(mask: np.ndarray) -> Box:
    ys, xs = np.nonzero(mask)
    return (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)


def segment_regions(image: Image.Image, max_regions: int = 24, min_frac: float = 0.002) -> list[Region]:
    """Region proposals from Felzenszwalb segmentation (scikit-image), largest first, background dropped."""
    from skimage.segmentation import felzenszwalb

    scale = min(1.0, 256 / max(image.size))  # large images are segmented at 256 px; small ones as they are
    small = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    work = np.asarray(image.convert("RGB").resize(small))
    labels = felzenszwalb(work, scale=200, sigma=0.6, min_size=20)
    labels = np.asarray(Image.fromarray(labels.astype(np.int32)).resize(image.size, Image.Resampling.NEAREST))
    ids, counts = np.unique(labels, return_counts=True)
    total = labels.size
    regions = []
    for i in ids[np.argsort(-counts)]:
        mask = labels == i
        frac = mask.mean()
        if frac < min_frac or frac > 0.6:  # specks, and the background
            continue
        regions.append(Region(_box_of(mask), "segment", mask))
        if len(regions) == max_regions:
            break
    log.debug("%d segment regions from %d labels over %d pixels", len(regions), len(ids), total)
    return regions


@lru_cache(maxsize=2)
def _sam_generator(checkpoint: str, model_type: str, device: str):
    from segment_anything import SamAutomaticMaskGenerator, sam_model_registry

    path = Path(checkpoint)
    if not path.is_file():
        raise FileNotFoundError(f"No SAM checkpoint at {path}: download one (e.g. sam_vit_b_01ec64.pth) and pass it.")
    sam = sam_model_registry[model_type](checkpoint=None)
    sam.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return SamAutomaticMaskGenerator(sam.to(device), points_per_side=16)


def sam_model_type(checkpoint: str) -> str:
    """``vit_h``, ``vit_l`` or ``vit_b`` from the checkpoint's file name (``vit_b`` if it says none)."""
    name = Path(checkpoint).name.lower()
    return next((t for t in ("vit_h", "vit_l", "vit_b") if t in name), "vit_b")


def sam_regions(image: Image.Image, checkpoint: str, device: str = "cpu", max_regions: int = 24) -> list[Region]:
    """Masks from segment-anything's automatic generator, largest first."""
    gen = _sam_generator(str(checkpoint), sam_model_type(str(checkpoint)), device)
    masks = sorted(gen.generate(np.asarray(image.convert("RGB"))), key=lambda m: -m["area"])
    return [Region(_box_of(m["segmentation"]), "sam", m["segmentation"]) for m in masks[:max_regions]]


def random_regions(image: Image.Image, n: int, seed: int = 0) -> list[Region]:
    """PowerCLIP's other option: random rectangles of a fifth to a half of each side."""
    rng = np.random.default_rng(seed)
    w, h = image.size
    out = []
    for _ in range(n):
        rw, rh = (int(rng.uniform(0.2, 0.5) * s) for s in (w, h))
        x, y = int(rng.integers(0, w - rw + 1)), int(rng.integers(0, h - rh + 1))
        mask = np.zeros((h, w), dtype=bool)
        mask[y : y + rh, x : x + rw] = True
        out.append(Region((x, y, x + rw, y + rh), "random", mask))
    return out


def visible_box(width: int, height: int, preprocess) -> Box:
    """The part of the image the encoder sees: the centre square after a shortest-side resize, else all of it."""
    sizes = [t.size for t in getattr(preprocess, "transforms", []) if isinstance(t, Resize)]
    if sizes and (isinstance(sizes[0], int) or len(sizes[0]) == 1):
        side = min(width, height)
        x0, y0 = (width - side) // 2, (height - side) // 2
        return (x0, y0, x0 + side, y0 + side)
    return (0, 0, width, height)


def patch_mask(mask: np.ndarray, grid: tuple[int, int], box: Box) -> np.ndarray:
    """A pixel mask (H, W) on the (h, w) patch grid of ``box``'s crop, flat (h * w,) bool: patches at least
    MIN_PATCH_COVER inside, else the nearest one."""
    h, w = grid
    x0, y0, x1, y1 = box
    crop = Image.fromarray(mask[y0:y1, x0:x1].astype(np.float32))
    frac = np.asarray(crop.resize((w, h), Image.Resampling.BOX)).ravel()
    out = frac >= MIN_PATCH_COVER
    if not out.any():
        if frac.max() > 0:
            out[frac.argmax()] = True
        else:  # the mask lies outside the visible square: the patch nearest its centroid
            ys, xs = np.nonzero(mask)
            gy = int(np.clip((ys.mean() - y0) / max(1, y1 - y0) * h, 0, h - 1))
            gx = int(np.clip((xs.mean() - x0) / max(1, x1 - x0) * w, 0, w - 1))
            out[gy * w + gx] = True
    return out
