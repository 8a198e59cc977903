"""User input made safe: any image file -> an upright RGB image of bounded size; caption checks."""

from __future__ import annotations

import io
import logging
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from explorer.core import cancel, settings
from explorer.core.cache import LRUCache

log = logging.getLogger(__name__)

MIN_SIDE, MAX_ASPECT = 8, 16  # an image smaller or thinner than this gets a notice: its regions cannot show objects
MAX_CAPTION_CHARS = 1000
IMAGES_KEPT = 8  # decoded uploads kept: a caption edit reads its image from here, not from the file again


class InputError(ValueError):
    """Bad user input; the message says what is wrong and what to do."""


def _to_rgb(im: Image.Image) -> Image.Image:
    """RGB from any mode: alpha composited on white, 16-bit and float rescaled to 8 bits."""
    if im.mode in ("I;16", "I;16B", "I;16L", "I", "F"):
        a = np.asarray(im, dtype=np.float64)
        lo, hi = float(a.min()), float(a.max())
        a = (a - lo) / (hi - lo) * 255 if hi > lo else np.zeros_like(a)
        im = Image.fromarray(a.astype(np.uint8), "L")
    if im.mode in ("RGBA", "LA", "PA") or (im.mode == "P" and "transparency" in im.info):
        im = im.convert("RGBA")
        background = Image.new("RGBA", im.size, (255, 255, 255, 255))
        return Image.alpha_composite(background, im).convert("RGB")
    return im.convert("RGB")


def normalize_image(im: Image.Image, max_side: int | None = None) -> Image.Image:
    """Upright (EXIF), RGB, longest side at most ``max_side`` (None: the ``max_side`` setting)."""
    max_side = settings.current().max_side if max_side is None else max_side
    im = ImageOps.exif_transpose(im)
    if im.mode not in ("RGB", "RGBA", "L", "LA", "CMYK"):
        im = _to_rgb(im)  # modes that resampling does not support
    if max(im.size) > max_side:
        im.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
    return _to_rgb(im)


def _notices(name: str, im: Image.Image) -> list[str]:
    """What the user should know about an image that is read, but not as they may expect."""
    out = []
    frames = getattr(im, "n_frames", 1)
    if frames > 1:
        out.append(f"{name} has {frames} frames (animated or multi-page): only the first frame is analyzed.")
    if im.width * im.height == 1:
        out.append(f"{name} is a single pixel: every region is that one colour, so the scores say little.")
    elif min(im.size) < MIN_SIDE or max(im.size) > MAX_ASPECT * min(im.size):
        out.append(f"{name} is {im.width} x {im.height} pixels: too small or too thin for regions to show "
                   f"objects, so the scores say little.")
    return out


TURNED = {5, 6, 7, 8}  # EXIF orientations that turn the picture a quarter: its width and height swap


@dataclass(frozen=True)
class Upload:
    """What a picture read from a file keeps of it (``ImageState.kept``, the picture's own; a view of it keeps it too,
    ``fit.view_state``): the file's own size, upright, where the page reads a smaller copy."""

    size: tuple[int, int]


def upright_size(im: Image.Image) -> tuple[int, int]:
    """A just-opened image's size as its maker sees it (read from its header, turned by its EXIF orientation)."""
    return (im.height, im.width) if im.getexif().get(0x0112) in TURNED else im.size


class _Checked(io.BufferedReader):
    """An image file whose every read checks the request's cancel token: a huge image's decoding, which reads its
    file a block at a time, stops between blocks once the request is given up."""

    def read(self, size: int | None = -1) -> bytes:
        cancel.check()
        return super().read(size)


def read_image(path: str | Path, max_side: int | None = None) -> tuple[Image.Image, list[str]]:
    """Open any image file the user gives, with notices about it; a clear ``InputError`` for anything else (the
    ``max_pixels`` setting refuses one too large; ``max_side`` None is the setting's)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"No file at {path.name}: upload an image first.")
    limits = settings.current()
    max_side, max_pixels = limits.max_side if max_side is None else max_side, limits.max_pixels
    too_big = f"downscale it first (this app accepts up to {max_pixels:,} pixels)."
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with _Checked(io.FileIO(path)) as f, Image.open(f) as im:  # the header read: refused by size unread
                if im.width * im.height > max_pixels:
                    raise InputError(f"{path.name} is {im.width} x {im.height} pixels, too many: {too_big}")
                notices, own = _notices(path.name, im), upright_size(im)
                im.draft("RGB", (max_side, max_side))  # JPEG decodes straight at a reduced scale
                im.load()
                out = normalize_image(im, max_side)
    except InputError:
        raise
    except Image.DecompressionBombError as exc:  # Pillow's own guard, met before the size can be read
        found = re.search(r"\((\d+) pixels\)", str(exc))
        pixels = f"{int(found.group(1)):,} pixels" if found else "too many pixels"
        raise InputError(f"{path.name} has {pixels}, too many: {too_big}") from exc
    except UnidentifiedImageError as exc:
        raise InputError(f"{path.name} is not an image this app can read (PNG, JPEG, WebP, TIFF, ...).") from exc
    except (OSError, ValueError, SyntaxError) as exc:
        raise InputError(f"{path.name} could not be decoded as an image ({exc}).") from exc
    log.debug("loaded %s as %s", path.name, out.size)
    if own != out.size:  # a smaller copy: its state knows the picture's own size (places are said in its pixels)
        from explorer.core import image_state  # here, not at the top: the loaders' --help loads no torch

        image_state.of(out).keep(Upload(own))
    return out, notices


_opened: LRUCache[tuple[Image.Image, list[str]]] = LRUCache(IMAGES_KEPT)


def read_image_kept(path: str | Path) -> tuple[Image.Image, list[str]]:
    """``read_image``, kept while the file stays as it is (path, size, modification time): every caption edit of
    one upload gets the same image object, decoded once."""
    path = Path(path)
    try:
        found = path.stat()
    except OSError:
        return read_image(path)  # its message for a missing file
    key = f"{path.resolve()}:{found.st_size}:{found.st_mtime_ns}"
    return _opened.get_or_compute(key, lambda: read_image(path))


def load_image(path: str | Path, max_side: int | None = None) -> Image.Image:
    """Open any image file the user gives; a clear ``InputError`` for anything else."""
    return read_image(path, max_side)[0]


def whole_number(value: float | str | None, what: str, low: int, high: int) -> int:
    """A number the user gave (a field, or the API) as a whole number from ``low`` to ``high``; else refused, in a
    sentence that names ``what`` and the value given."""
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InputError(f"{what} must be a number from {low} to {high}; got {value!r}.") from None
    if not number.is_integer() or not low <= number <= high:
        raise InputError(f"{what} must be a whole number from {low} to {high}; got {number:g}.")
    return int(number)


def clean_caption(text: str | None, which: str) -> str:
    """One line of text, whitespace collapsed; empty or overlong captions are refused."""
    caption = " ".join((text or "").split())
    if not caption:
        raise InputError(f"Caption {which} is empty: type a caption.")
    if len(caption) > MAX_CAPTION_CHARS:
        raise InputError(f"Caption {which} is longer than {MAX_CAPTION_CHARS} characters: shorten it.")
    return caption


def clean_caption_pair(a: str | None, b: str | None) -> tuple[str, str]:
    ca, cb = clean_caption(a, "A"), clean_caption(b, "B")
    if ca.lower() == cb.lower():
        raise InputError("Captions A and B are the same: edit B, or press 'Swap for me'.")
    return ca, cb
