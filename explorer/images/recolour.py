"""One flat object of a picture given another colour or another shape, its soft edge and the background kept."""

from __future__ import annotations

import numpy as np
from PIL import Image
from scipy import ndimage

from explorer.images.objects import EDGE, FoundObject, blend
from explorer.world.drawings import Drawing
from explorer.world.scene import WorldObject

SUPERSAMPLE = 4  # a new shape is drawn this many times larger, then shrunk: its edge is as soft as a drawn one's
ON_LINE = 40.0  # RGB distance: a pixel this close to the line from background to fill is the object's fill or edge
FAINT = 0.3  # share of the fill: a pixel nearer the background is background (noise, a gradient); chosen on val-


def _reach(pixels: np.ndarray, found: FoundObject, share: np.ndarray) -> np.ndarray:
    """The object's pixels the segmentation left out (it works at 256 px at most, and drops specks): those joined to
    its mask whose colour lies between the background's and the fill's, no further than ``EDGE`` x 2 from its box."""
    line = np.asarray(found.background, dtype=float) + share[..., None] * np.subtract(found.rgb, found.background)
    on_line = (np.linalg.norm(pixels - line, axis=-1) < ON_LINE) & (share > FAINT)
    near = np.zeros(share.shape, bool)
    x0, y0, x1, y1 = found.box
    near[max(0, y0 - 2 * EDGE): y1 + 2 * EDGE, max(0, x0 - 2 * EDGE): x1 + 2 * EDGE] = True
    return ndimage.binary_propagation(found.mask, mask=(on_line & near) | found.mask)


def _share(pixels: np.ndarray, found: FoundObject) -> np.ndarray:
    """Each pixel's share of the object's fill (0 outside it): the fill's region whole, its edge by its blend."""
    share = blend(pixels, found.background, found.rgb)
    around = ndimage.binary_dilation(found.mask, iterations=2) | _reach(pixels, found, share)
    return np.where(found.core, 1.0, np.where(around, share, 0.0))


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
