"""The picture prepared once per image and view (``prepare``): what every method, caution and panel reads of it,
made in this one place and kept in the view's state, so that no reader looks the view, its frame or its objects up
again by a road of its own."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PIL import Image

from explorer.core import image_state
from explorer.core.image_state import ImageState
from explorer.images.fit import Fit, fit_of, frame_of, view_state
from explorer.images.ink import on_paper
from explorer.images.objects import FoundObject
from explorer.images.regions import Box
from explorer.methods import proposals


@dataclass(frozen=True, eq=False)
class Picture:
    """What is read of one picture under one view, kept in the view's state (the view every method reads):
    ``fit``, how the upload as read was made that view (its box in the upload's pixels); ``paper``, the plain paper's
    colour a drawing is on (None for a photo, whose background is not known); ``objects``, the objects drawn on that
    paper, in the view's pixels (none for a photo)."""

    fit: Fit
    paper: tuple[int, int, int] | None
    objects: tuple[FoundObject, ...]
    text: tuple[Box, ...] = ()  # the boxes of the lines of text found on the paper (a title, a footer), view's pixels

    def mask(self) -> np.ndarray | None:
        """The objects' pixels in the view, (H, W) bool; None for a photo or an empty canvas."""
        return np.logical_or.reduce([o.mask for o in self.objects]) if self.objects else None

    def boxes(self) -> list[Box]:
        """The objects' boxes in the view's pixels."""
        return [o.box for o in self.objects]

    def centres(self) -> list[tuple[float, float]]:
        """The objects' centres in the pixels of the view's frame: the picture as read (the page read from it, where
        one was: a photographed sheet set upright), where the model's input box (``model_input.seen_box``) lies."""
        shifted = [self.fit.box_to_frame(o.box) for o in self.objects]
        return [((x0 + x1) / 2, (y0 + y1) / 2) for x0, y0, x1, y1 in shifted]


def prepare(image: Image.Image | ImageState, view: str = "whole") -> tuple[ImageState, Picture]:
    """The state of ``image``'s view (``fit.view_state``) and its picture, prepared once and kept in that state."""
    state = view_state(image_state.of(image), view)  # type: ignore[arg-type]
    return state, prepared(state)


def prepared(state: ImageState) -> Picture:
    """The prepared picture of a view's state (made on first asking, then kept)."""
    return state.kept(Picture, lambda: _made(state))


def _made(state: ImageState) -> Picture:
    frame = frame_of(state)
    fit = frame.fit if frame else fit_of(state.image, "raw")
    paper = on_paper(state.image)
    found = proposals.objects(state) if paper is not None else None
    return Picture(fit, paper, found.objects, found.text) if found else Picture(fit, paper, ())
