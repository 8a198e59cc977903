"""The interactions as the "Where the model looks" tab shows them, without gradio: a word or span chosen from caption A
or B, its interaction map in each caption that holds it (A and B on one scale, the picture's colours untouched), and
for a region of the picture each word's share of that region's interaction."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import torch
from PIL import Image

from explorer.core import image_state
from explorer.core.image_state import ImageState
from explorer.explain.base import upsample
from explorer.explain.interactions import Interactions, interactions
from explorer.explain.looks import Looks, Panel, on_frame
from explorer.images.fit import frame_of
from explorer.images.regions import Box, visible_box
from explorer.models.encoders import DualEncoder

# a region of the picture, as fractions of its width and height (x0, y0, x1, y1)
REGIONS = {"whole picture": (0.0, 0.0, 1.0, 1.0), "left half": (0.0, 0.0, 0.5, 1.0), "right half": (0.5, 0.0, 1.0, 1.0),
           "top half": (0.0, 0.0, 1.0, 0.5), "bottom half": (0.0, 0.5, 1.0, 1.0)}
SCALE = "interaction with the cosine (its positive part)"
READING = ("Beside each picture, the chosen words' interaction with each patch: white where those words and that part "
           "of the picture together add most to the caption's cosine (exCLIP's second-order attribution), dark where "
           "they add nothing or take away; A and B on one scale. Where a span such as \u201cred square\u201d lights "
           "the red object in A and the square in B, the model binds the words to different objects. The shades "
           "under the words: each word's share of the chosen region's interaction.")


def word_menu(captions: Sequence[str]) -> list[str]:
    """Every word and every two neighbouring words of either caption ("red", "red square"), in order, once each."""
    out: list[str] = []
    for caption in captions:
        words = caption.split()
        out += words + [f"{a} {b}" for a, b in zip(words, words[1:])]
    return list(dict.fromkeys(out))


def find_words(caption: str, text: str) -> list[int] | None:
    """The indices of the caption's words that spell ``text`` (its first occurrence), or None."""
    words, wanted = caption.split(), text.split()
    for i in range(len(words) - len(wanted) + 1):
        if words[i : i + len(wanted)] == wanted:
            return list(range(i, i + len(wanted)))
    return None


def region_cells(grid: tuple[int, int], region: str, seen: Box | None = None,
                 picture: tuple[int, int, int, int] | None = None) -> np.ndarray:
    """(h, w) 1 on the patches whose centres lie in ``region`` of the picture, else 0: the patches tile ``seen``, the
    part of the view the model reads (x0, y0, x1, y1 in the view's pixels), and ``picture`` is the view's corner on
    the picture and the picture's size (left, top, width, height); without them the grid is the picture."""
    x0, y0, x1, y1 = REGIONS[region]
    ys, xs = (np.arange(grid[0]) + 0.5) / grid[0], (np.arange(grid[1]) + 0.5) / grid[1]
    if seen is not None and picture is not None:  # each patch centre on the picture, as a fraction of its sides
        left, top, w, h = picture
        xs = (seen[0] + xs * (seen[2] - seen[0]) + left) / w
        ys = (seen[1] + ys * (seen[3] - seen[1]) + top) / h
    return ((ys[:, None] >= y0) & (ys[:, None] < y1) & (xs[None] >= x0) & (xs[None] < x1)).astype(float)


def word_shares(found: Interactions, cells: np.ndarray) -> np.ndarray:
    """Each word's share (words,) of the positive interaction of the region ``cells`` (h, w) (zeros where it has
    none)."""
    values = np.clip(found.word_values(cells), 0, None)
    total = float(values.sum())
    return values / total if total > 0 else values


def found_for(encoder: DualEncoder, seen: ImageState, captions: tuple[str, str]) -> list[Interactions]:
    """Both captions' interactions with the view ``seen``, kept in its state by model and caption (as the explainers'
    maps are) for the next choice of words or region: a caption edit works out the edited caption alone."""
    return seen.by_caption((encoder.key, interactions), captions,  # owned by the function: no explainer's name
                           lambda new: interactions(encoder, seen.image, new))


def interaction_view(encoder: DualEncoder, seen: Image.Image | ImageState, captions: tuple[str, str], text: str,
                     region: str = "whole picture") -> Looks:
    """A's and B's panels for the words ``text`` and the region ``region`` of the picture, worked out on ``seen``, the
    state of the view the analysis read (its ``state``: the cosines are the table's), and drawn back on the picture's
    own frame."""
    if region not in REGIONS:
        raise ValueError(f"unknown region {region!r}; known: {', '.join(REGIONS)}")
    seen = image_state.of(seen)
    frame = frame_of(seen)
    fit = frame.fit if frame else None
    image = seen.image
    box = visible_box(image.width, image.height, encoder.preprocess)
    cells = region_cells(encoder.grid, region, box, (*fit.box[:2], *fit.size) if fit else (0, 0, *image.size))
    panels = []
    for found in found_for(encoder, seen, captions):
        shares = word_shares(found, cells)
        picked = find_words(found.caption, text)
        if picked is None:
            panels.append(Panel(found.caption, text, None, None, found.words, shares, found.cosine,
                                missing=f"no \u201c{text}\u201d in this caption"))
            continue
        heat = upsample(torch.from_numpy(np.clip(found.words_map(picked), 0, None)), image.size, box)
        y, x = np.unravel_index(int(heat.argmax()), heat.shape)
        panels.append(on_frame(Panel(found.caption, text, heat, (int(x), int(y)), found.words, shares, found.cosine),
                               fit))
    notes = ("random weights: these interactions read no training",) if encoder.random_weights else ()
    return Looks((panels[0], panels[1]), "interactions", "interactions", SCALE, READING, notes)
