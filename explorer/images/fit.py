"""The view of a picture every method reads: the whole picture, square, its small drawings enlarged.

A model reads a square input, and open_clip's preprocess centre-crops a picture that is not square: the sides of a
slide never reach the model. The ``whole`` view (the default) hands every method (the global score, SGI's crops,
TFLocal, PowerCLIP, the maps) a square picture instead:
- a drawing (a picture with a plain frame) whose objects, all together, fill ``CONTENT_SHARE`` of a square at most
  ``SMALL_CONTENT`` of the picture's longer side is cut to that square around them (padded with the picture's own
  background where it reaches past an edge): a small shape reaches the model at the size the world's shapes have;
- else a picture that is not square is padded to a square (letterboxed) with its own background colour;
- else the picture is read as it is: the world's scenes and every square photo reach the model unchanged.
The ``raw`` view reads the picture as it is, and the model's preprocess crops it as it always has (SGI's crops of
small things too: the state's ``view``).

A picture whose page is read first (``page.read_page``: a photographed sheet set upright and its light evened, a
ruled page's lines painted out) has its views cut from that page, which is then their frame.

Every view is the picture cut and padded at its own scale, never resized: a point of the view is a point of the
picture moved by ``Fit.box``'s corner, so the methods' boxes and maps are drawn back onto the picture's own frame by
moving them (``Fit.box_to_frame``, ``Fit.map_to_frame``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from PIL import Image

from explorer.core import image_state
from explorer.core.image_state import ImageState
from explorer.images.inputs import Upload
from explorer.images.page import INK, Page, background, page_of
from explorer.world.scene import flat_frame  # the frame test that tells a drawing from a photo

Box = tuple[int, int, int, int]
View = Literal["whole", "raw"]
VIEWS: tuple[str, ...] = ("whole", "raw")
CONTENT_SHARE = 0.35  # chosen on the validation looks (docs/views.md): what the drawing's box fills of its view's side
SMALL_CONTENT = 0.6  # chosen there too: a content view where its side is at most this share of the letterbox's
PLAIN_FRAME = 0.8  # a drawing's frame is plain (``world.flat_frame``): a photo never gets a content view
PROBE_SIDE = 512  # the content is found on a copy at most this large


@dataclass(frozen=True)
class Fit:
    """How a picture of ``size`` (width, height) is read: ``box``, the square of it the view shows (x0, y0, x1, y1 in
    its pixels, reaching past its edges where the view is padded), padded with ``fill``; ``how`` one of "as is",
    "letterboxed", "content" or "raw"."""

    size: tuple[int, int]
    box: Box
    fill: tuple[int, int, int]
    how: str
    page: Page | None = None  # the page the view is cut from, where it is not the picture itself (``page.read_page``)

    @property
    def changes(self) -> bool:
        return self.box != (0, 0, *self.size) or self.page is not None

    def picture(self, image: Image.Image) -> Image.Image:
        """The view of ``image``: the picture itself where nothing changes; else cut from its page."""
        if not self.changes:
            return image
        x0, y0, x1, y1 = self.box
        out = Image.new("RGB", (x1 - x0, y1 - y0), self.fill)
        out.paste((self.page.picture if self.page else image).convert("RGB"), (-x0, -y0))
        return out

    def box_to_picture(self, box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        """A box in the view's pixels, in the picture's own (through its page, turned back where a sheet was)."""
        moved = self.box_to_frame(box)
        return self.page.box_to_frame(moved) if self.page else moved

    def box_to_frame(self, box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        """A box in the view's pixels, in its frame's: the picture's (the page's, where it has one), past its edges
        where the box lies on the padding."""
        x0, y0 = self.box[:2]
        return (box[0] + x0, box[1] + y0, box[2] + x0, box[3] + y0)

    def map_to_frame(self, heat: np.ndarray) -> np.ndarray:
        """A map over the view (h, w), over the picture (H, W) instead: 0 where the view does not reach."""
        w, h = self.size
        x0, y0, x1, y1 = self.box
        out = np.zeros((h, w), dtype=heat.dtype)
        left, top, right, bottom = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        if right > left and bottom > top:
            out[top:bottom, left:right] = heat[top - y0 : bottom - y0, left - x0 : right - x0]
        return out

    @property
    def note(self) -> str:
        """One sentence: what of the picture every method reads."""
        read = "".join(f"{what}; " for what in self.page.what) if self.page else ""
        return read + self._how()

    def _how(self) -> str:
        (w, h), (x0, y0, x1, y1) = self.size, self.box
        if self.how == "letterboxed":
            bars = "above and below" if w > h else "left and right"
            return (f"the whole {w} x {h} picture is read, padded {bars} to a {x1 - x0} x {y1 - y0} square with its "
                    f"own background colour {self.fill}")
        if self.how == "content":
            return (f"the drawing is small in its {w} x {h} picture: the {x1 - x0} x {y1 - y0} square around it is "
                    f"read (padded with the background {self.fill} where it reaches past an edge), so its shapes "
                    f"reach the model larger")
        if self.how == "raw":
            return f"the {w} x {h} picture is read as it is: the model's preprocess crops it as it always has"
        return f"the {w} x {h} picture is read as it is"


def content_box(image: Image.Image, fill: tuple[int, int, int]) -> Box | None:
    """The box of the pixels drawn on the background ``fill`` (None: nothing is), found on a copy at most
    ``PROBE_SIDE`` pixels a side and grown by a pixel of it so nothing drawn is cut."""
    factor = min(1.0, PROBE_SIDE / max(image.size))
    probe = image.convert("RGB")
    if factor < 1:
        probe = probe.resize((max(1, round(image.width * factor)), max(1, round(image.height * factor))),
                             Image.Resampling.BILINEAR)
    drawn = np.linalg.norm(np.asarray(probe, dtype=np.float32) - np.asarray(fill, dtype=np.float32), axis=2) > INK
    rows, cols = np.flatnonzero(drawn.any(axis=1)), np.flatnonzero(drawn.any(axis=0))
    if rows.size == 0:
        return None
    scale = 1 / factor
    x1, y1 = int(np.ceil((cols[-1] + 2) * scale)), int(np.ceil((rows[-1] + 2) * scale))
    return (max(0, int((cols[0] - 1) * scale)), max(0, int((rows[0] - 1) * scale)), min(image.width, x1),
            min(image.height, y1))


def _square_around(box: Box, side: int) -> Box:
    x0, y0, x1, y1 = box
    left, top = (x0 + x1 - side) // 2, (y0 + y1 - side) // 2
    return (left, top, left + side, top + side)


def fit_of(image: Image.Image | ImageState, view: View = "whole", small: float | None = None,
           share: float | None = None) -> Fit:
    """How ``view`` reads ``image`` or its state (``small`` and ``share``: the content view's thresholds,
    ``SMALL_CONTENT`` and ``CONTENT_SHARE`` unless a choice on the validation looks tries others)."""
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}; known: {', '.join(VIEWS)}")
    small, share = small or SMALL_CONTENT, share or CONTENT_SHARE
    state = image if isinstance(image, ImageState) else None
    image = state.image if state is not None else image
    if view == "raw":
        return Fit(image.size, (0, 0, *image.size), (0, 0, 0), "raw")
    page = page_of(state or image_state.of(image))  # the state found once: its picture is hashed once
    image = page.picture if page.changes else image
    w, h = image.size
    whole, read = (0, 0, w, h), page if page.changes else None
    fill = background(image)
    if flat_frame(image) >= PLAIN_FRAME and (drawn := content_box(image, fill)) is not None:
        side = max(1, round(max(drawn[2] - drawn[0], drawn[3] - drawn[1]) / share))
        if side <= small * max(w, h):
            return Fit((w, h), _square_around(drawn, side), fill, "content", read)
    if w != h:
        return Fit((w, h), _square_around(whole, max(w, h)), fill, "letterboxed", read)
    return Fit((w, h), whole, fill, "as is", read)


@dataclass(frozen=True, eq=False)
class Frame:
    """What a view's state was cut from (``ImageState.kept``, the state's own): the ``Fit`` it was made with and the
    picture it was made from, on whose frame its boxes and maps are drawn."""

    fit: Fit
    picture: Image.Image


def view_state(image: Image.Image | ImageState, view: View = "whole") -> ImageState:
    """The state every method reads of ``image`` under ``view``: the picture's own where the whole view leaves it as
    it is (the picture's state keeps that view's ``Fit``, owned by the view's name), else the view's, which keeps its
    ``Frame``. The raw view's is a state of its own (its ``view`` "raw"), so a method's work on it (SGI's views, which
    enlarge small things only under the whole view) is never taken for the whole view's."""
    state = image_state.of(image)
    upload = state.find(Upload)
    if view == "raw":
        raw = image_state.STATES.of(state.image, key=f"{state.key}/raw")
        raw.view = "raw"
        return raw if upload is None else _keeping(raw, upload)
    fit = state.kept(Fit, lambda: fit_of(state, view), view)
    if not fit.changes:
        return state
    seen = image_state.STATES.of(fit.picture(state.image), key=f"{state.key}/{view}")
    seen.kept(Frame, lambda: Frame(fit, fit.page.picture if fit.page else state.image))
    seen.view = view
    return seen if upload is None else _keeping(seen, upload)


def _keeping(seen: ImageState, upload: Upload) -> ImageState:
    """A view's state, keeping the picture's ``Upload``: its places can be said in the upload's own pixels."""
    seen.keep(upload)
    return seen


def frame_of(state: ImageState) -> Frame | None:
    """The ``Frame`` a view's state was cut from; None for a picture's own state."""
    return state.find(Frame)
