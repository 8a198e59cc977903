"""Maps over a picture, knowing no method: a patch grid placed over the display, its levels as greys beside the
picture in its own colours with the top of the map outlined, and a grid upsampled onto the image."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image

from explorer.drawing import marks
from explorer.drawing.display import Place, display_image
from explorer.images.regions import Box

MAP_FLOOR = 0.3  # a map's darkest grey, a share of white, where it is least; white where it is most
TOP_LEVEL = 0.5  # the picture's outline encloses the map's upper half of its scale (from least to most)


def grid_over(grid: np.ndarray, box: tuple[int, int, int, int], place: Place,
               resample: Image.Resampling) -> tuple[Image.Image, tuple[int, int]]:
    """A (h, w) uint8 patch grid scaled over the part of a display canvas that ``box`` covers in the picture the
    methods read, and that part's top-left corner (left of or above the canvas where the box reaches past it)."""
    x0, y0, x1, y1 = (round(v) for v in place.box(box))
    return Image.fromarray(grid).resize((max(1, x1 - x0), max(1, y1 - y0)), resample), (x0, y0)


def span(maps: Sequence[np.ndarray]) -> tuple[float, float]:
    """The least and the most of every map (each of any shape)."""
    return min(float(m.min()) for m in maps), max(float(m.max()) for m in maps)


def map_levels(image: Image.Image, heat: np.ndarray, box: tuple[int, int, int, int], scale: tuple[float, float],
               side: int) -> tuple[Image.Image, np.ndarray]:
    """The display canvas and ``heat`` ((h, w) over ``box``) on it, an (H, W) level a pixel of the canvas from 0
    (``scale``'s low, and outside ``box``, the part of the image the map covers) to 1 (its high)."""
    low, high = scale
    clear = np.clip((heat - low) / (high - low), 0, 1) if high > low else np.ones_like(heat)
    canvas, place = display_image(image, side)
    cells, corner = grid_over((clear * 255).astype(np.uint8), box, place, Image.Resampling.BILINEAR)
    level = Image.new("L", canvas.size, 0)
    level.paste(cells, corner)  # clipped to the canvas
    return canvas, np.asarray(level, dtype=np.float32) / 255


def grey_map(level: np.ndarray) -> Image.Image:
    """A map's (H, W) levels (0 to 1) as greys: MAP_FLOOR of white where least, white where most."""
    return Image.fromarray((255 * (MAP_FLOOR + (1 - MAP_FLOOR) * level)).round().astype(np.uint8)).convert("RGB")


def mapped(image: Image.Image, heat: np.ndarray, box: tuple[int, int, int, int], scale: tuple[float, float],
           side: int) -> Image.Image:
    """The picture in its own colours, every pixel as it is but for the outline of the part where ``heat`` ((h, w) over
    ``box``) reaches TOP_LEVEL of ``scale`` (low, high), and beside it the map in greys (dark where least, white where
    most) with the same outline. Nothing is veiled or tinted: on a page about which object has which colour, a yellow
    star under a dark veil reads olive and white reads grey."""
    canvas, level = map_levels(image, heat, box, scale, side)
    top = marks.top_region(level, TOP_LEVEL)
    shown = marks.outline_region(grey_map(level), top, side)
    return marks.beside(marks.outline_region(canvas, top, side), shown)


def upsample(grid: torch.Tensor, size: tuple[int, int], box: Box) -> np.ndarray:
    """A (h, w) grid bilinearly over ``box`` of an image of ``size`` (width, height): an (H, W) array, 0 outside."""
    x0, y0, x1, y1 = box
    out = np.zeros((size[1], size[0]), dtype=np.float32)
    scaled = F.interpolate(grid[None, None].float(), size=(y1 - y0, x1 - x0), mode="bilinear", align_corners=False)
    out[y0:y1, x0:x1] = scaled[0, 0].clamp(min=0).numpy()
    return out
