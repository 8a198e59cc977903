"""One flat object of a picture given another colour or another shape, its soft edge and the background kept."""

from __future__ import annotations

import numpy as np
from PIL import Image
from scipy import ndimage

from explorer.images.objects import FoundObject, blend
from explorer.world.drawings import Drawing
from explorer.world.scene import WorldObject

SUPERSAMPLE = 4  # a new shape is drawn this many times larger, then shrunk: its edge is as soft as a drawn one's


def _share(pixels: np.ndarray, found: FoundObject) -> np.ndarray:
    """Each pixel's share of the object's fill (0 outside it): the fill's region whole, its edge by its blend."""
    around = ndimage.binary_dilation(found.mask, iterations=2)
    share = np.where(around, blend(pixels, found.background, found.rgb), 0.0)
    return np.where(found.core, 1.0, share)


def recolour(image: Image.Image, found: FoundObject, fill: tuple[int, int, int]) -> Image.Image:
    """The picture with the object's fill turned to ``fill``; every pixel moves by its share of the fill, so a
    blended edge, noise and shading stay as they were."""
    pixels = np.asarray(image.convert("RGB"), dtype=float)
    shift = np.subtract(fill, found.rgb, dtype=float)
    out = pixels + _share(pixels, found)[..., None] * shift
    return Image.fromarray(np.clip(np.round(out), 0, 255).astype(np.uint8))


def reshape(image: Image.Image, found: FoundObject, shape: str,
            fill: tuple[int, int, int] | None = None) -> Image.Image:
    """The picture with the object erased to its background and ``shape`` drawn in its box, in its fill (or
    ``fill``), with PIL's primitives (``world.drawings``)."""
    pixels = np.asarray(image.convert("RGB"), dtype=float)
    erased = pixels - _share(pixels, found)[..., None] * np.subtract(found.rgb, found.background, dtype=float)
    x0, y0, x1, y1 = found.box
    side = max(x1 - x0, y1 - y0)
    drawn = WorldObject("white", shape, "large", 0.5, 0.5)  # fills the middle 0.36 of its canvas, as drawings do
    canvas = int(round(side / drawn.extent / 0.9))  # a drawn circle spans 0.9 of its extent
    big = Drawing((drawn,), (0, 0, 0)).masks(canvas * SUPERSAMPLE)[0]
    alpha = np.asarray(Image.fromarray(big.astype(np.float32)).resize((canvas, canvas), Image.Resampling.BOX))
    layer = np.zeros(pixels.shape[:2])
    left, top = (x0 + x1) // 2 - canvas // 2, (y0 + y1) // 2 - canvas // 2
    ys = slice(max(0, top), min(layer.shape[0], top + canvas))
    xs = slice(max(0, left), min(layer.shape[1], left + canvas))
    layer[ys, xs] = alpha[ys.start - top: ys.stop - top, xs.start - left: xs.stop - left]
    colour = np.asarray(fill if fill is not None else found.rgb, dtype=float)
    out = erased * (1 - layer[..., None]) + colour * layer[..., None]
    return Image.fromarray(np.clip(np.round(out), 0, 255).astype(np.uint8))
