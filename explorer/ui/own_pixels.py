"""Places and sizes said in the uploaded picture's own pixels, not in the smaller copy the page reads (its longest
side at most the ``max_side`` setting): a 1600 x 900 slide is reported as 1600 x 900, its boxes on that frame."""

from __future__ import annotations

from typing import Sequence

from PIL import Image

from explorer.images.inputs import upright_size


def own_size(path: str | None, read: Image.Image) -> tuple[int, int]:
    """The picture's size as the user made it (read from its header alone, upright), or ``read``'s where the file
    cannot say."""
    try:
        with Image.open(path) as im:
            return upright_size(im)
    except (OSError, ValueError, TypeError, Image.DecompressionBombError):  # the page read it: the copy's size stands
        return read.size


def scale(path: str | None, read: Image.Image) -> float:
    """How many of the picture's own pixels one pixel of ``read`` stands for."""
    return own_size(path, read)[0] / read.width


def own_box(box: Sequence[float], factor: float) -> tuple[int, ...]:
    """A box (x0, y0, x1, y1) of the read copy in the picture's own pixels."""
    return tuple(round(v * factor) for v in box)


def sizes_note(path: str | None, read: Image.Image) -> str:
    """A sentence saying the picture's own size and the size the page reads it at, where they differ."""
    width, height = own_size(path, read)
    if (width, height) == read.size:
        return ""
    return (f"Your picture is {width} x {height} pixels; the page reads a copy of {read.width} x {read.height} "
            f"(places and sizes below are in your picture's pixels).")
