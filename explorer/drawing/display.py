"""Pictures shown on the page, knowing no method: the picture scaled for display, where the methods' points land
on it (``Place``), what the model's input holds of it, boxes placed, rows stacked, regions named."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from explorer.core import image_state
from explorer.core.image_state import ImageState
from explorer.drawing import marks
from explorer.drawing.marks import INK, Rect
from explorer.images.fit import frame_of
from explorer.images.inputs import Upload
from explorer.images.page import Page
from explorer.images.regions import Region

DISPLAY_SIDE = 448
MUTED = (150, 150, 150)  # a thin line that marks, not a mark: a picture's own edges inside its padding


@dataclass(frozen=True)
class Place:
    """Where a point of the picture the methods read lands on a display canvas: moved by (dx, dy) onto the picture's
    own frame (a view of it, ``explorer.images.fit``, is the picture moved), then scaled by ``f``."""

    f: float
    dx: float = 0.0
    dy: float = 0.0
    page: Page | None = None  # a page read from the picture (a photographed sheet set upright): turned back onto it

    def box(self, box: Sequence[float]) -> tuple[float, float, float, float]:
        x0, y0, x1, y1 = box
        moved = (x0 + self.dx, y0 + self.dy, x1 + self.dx, y1 + self.dy)
        if self.page is not None:
            moved = self.page.box_to_frame(moved)
        return tuple(v * self.f for v in moved)  # type: ignore[return-value]


def display_image(image: Image.Image | ImageState, side: int = DISPLAY_SIDE) -> tuple[Image.Image, Place]:
    """The picture scaled so its longest side is ``side`` (small world scenes stay crisp), and where the methods'
    points land on it: a copy to draw on. A view's state (``fit.view_state``) is drawn on the picture it was made
    from, its points moved back onto that picture's frame. Kept in the state, as every caption edit draws its overlay
    on the same picture (a photo costs more to scale again than to hash; given the state, nothing is hashed)."""
    state = image_state.of(image)
    frame = frame_of(state)
    shown = state.kept(Shown, lambda: _scaled(frame.picture if frame else state.image, side), side)
    dx, dy = frame.fit.box[:2] if frame else (0, 0)
    return shown.picture.copy(), Place(shown.factor, dx, dy)


def upload_place(state: ImageState) -> Place:
    """Where a point of the view's ``state`` lies in the uploaded picture's own pixels: moved onto the picture it was
    cut from (``fit.view_state``; turned back off a photographed sheet set upright, a box the one around its turned
    corners), then scaled by the upload's width over the width the page read it at (its ``Upload``; 1 for a picture
    read at its own size)."""
    frame = frame_of(state)
    dx, dy = frame.fit.box[:2] if frame else (0, 0)
    upload = state.find(Upload)
    page = frame.fit.page if frame else None
    width = page.size[0] if page else frame.fit.size[0] if frame else state.image.width
    return Place(upload.size[0] / width if upload else 1.0, dx, dy, page)


@dataclass(frozen=True, eq=False)
class Shown:
    """What an image's state keeps for display at one side (``ImageState.kept``, owned by the side): the picture
    scaled by ``factor``."""

    picture: Image.Image
    factor: float


def _scaled(image: Image.Image, side: int) -> Shown:
    factor = side / max(image.size)
    size = (max(1, round(image.width * factor)), max(1, round(image.height * factor)))
    resample = Image.Resampling.NEAREST if factor >= 2 else Image.Resampling.LANCZOS
    return Shown(image.convert("RGB").resize(size, resample), factor)


def model_view(image: Image.Image | ImageState, box: tuple[int, int, int, int], fill: tuple[int, int, int] = (0, 0, 0),
               side: int = DISPLAY_SIDE) -> Image.Image:
    """What the model's input holds of the picture: ``box`` (x0, y0, x1, y1 in the picture's pixels) outlined just
    outside, the picture's part outside it greyed and washed out (cut before the model reads it), and where the box
    reaches past the picture, the padding in ``fill`` as the model gets it; inside the box every pixel of the picture
    is as shown elsewhere on the page. A box that is the picture: the picture as it is."""
    picture = image_state.of(image).image
    w, h = picture.size
    if tuple(box) == (0, 0, w, h):
        return display_image(picture, side)[0]
    left, top = min(box[0], 0), min(box[1], 0)
    f = side / max(max(box[2], w) - left, max(box[3], h) - top)
    scaled = picture.convert("RGB").resize((max(1, round(w * f)), max(1, round(h * f))), Image.Resampling.LANCZOS)
    size = (round((max(box[2], w) - left) * f), round((max(box[3], h) - top) * f))
    at = (round(-left * f), round(-top * f))
    x0, y0, x1, y1 = (round((v - o) * f) for v, o in zip(box, (left, top, left, top)))
    canvas = Image.new("RGB", size, marks.PAPER)
    canvas.paste(Image.blend(scaled.convert("L").convert("RGB"), Image.new("RGB", scaled.size, marks.PAPER), 0.6), at)
    kept = Image.new("RGB", (x1 - x0, y1 - y0), tuple(fill))
    kept.paste(scaled, (at[0] - x0, at[1] - y0))
    canvas.paste(kept, (x0, y0))
    draw = ImageDraw.Draw(canvas)
    if box[0] < 0 or box[1] < 0 or box[2] > w or box[3] > h:  # padded: the picture's own edges, thin, on the padding
        draw.rectangle((at[0] - 1, at[1] - 1, at[0] + scaled.width, at[1] + scaled.height), outline=MUTED, width=1)
    width = marks.line_width(max(size))
    draw.rectangle((x0 - width, y0 - width, x1 + width - 1, y1 + width - 1), outline=INK, width=width)
    return canvas


def box_on(canvas: Image.Image, box: tuple[float, float, float, float], place: Place, inset: float = 0) -> Rect:
    """A region's box placed on the display canvas, inset (outset where negative), kept on the canvas and never
    inverted (thin images keep a 1 px box)."""
    x0, y0, x1, y1 = place.box(box)
    x0, y0 = min(max(0, x0 + inset), canvas.width - 1), min(max(0, y0 + inset), canvas.height - 1)
    return x0, y0, min(max(x0, x1 - 1 - inset), canvas.width - 1), min(max(y0, y1 - 1 - inset), canvas.height - 1)


def stacked_rows(n: int, gap: float) -> list[tuple[float, float]]:
    """The (bottom, top) paper coordinates of ``n`` rows stacked from the top, ``gap`` apart: the grid
    ``make_subplots(rows=n, cols=1, vertical_spacing=gap)`` lays out."""
    height = (1 - gap * (n - 1)) / n
    return [(1 - r * (height + gap) - height, 1 - r * (height + gap)) for r in range(n)]


def region_name(i: int, region: Region, place: Place = Place(1.0), separator: str = " ") -> str:
    """'r12 crop 64×64 @0,32': its number, kind, size and top-left corner in the pixels ``place`` puts it in (the
    uploaded picture's own: ``upload_place``); ``separator`` between its kind and its size ("<br>": on two lines)."""
    if region.source == "image":
        return f"r{i} whole image"
    x0, y0, x1, y1 = (round(v) for v in place.box(region.box))
    return f"r{i} {region.source}{separator}{x1 - x0}\u00d7{y1 - y0} @{x0},{y0}"
