"""Where a method's evidence is weak or off the objects, judged on a drawing's own objects and said in words a
student reads: each method's own judge (its ``MethodInfo.cautions``: a match on empty canvas, a subset of background,
attention off the shapes), and the model's input showing none of the objects.

Only a picture drawn on plain paper is judged (``ink.on_paper``): there the objects are known (``proposals.objects``)
and everything else is canvas. A photo gets no caution: what is "background" in it is not known here.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from explorer.core.image_state import ImageState
from explorer.images.ink import on_paper
from explorer.images.regions import Box
from explorer.methods import REGISTRY, Caution, Score, proposals


def objects_mask(state: ImageState) -> np.ndarray | None:
    """The pixels of the objects drawn on the state's plain paper, (H, W) bool; None for a photo or an empty
    canvas."""
    if on_paper(state.image) is None:
        return None
    found = proposals.objects(state).objects
    return np.logical_or.reduce([o.mask for o in found]) if found else None


def input_caution(picture: ImageState, seen: Box | None) -> list[Caution]:
    """The model's input (``seen``: the box of the picture it shows) holding none of the picture's objects' centres."""
    if seen is None or on_paper(picture.image) is None:
        return []
    found = proposals.objects(picture).objects
    centres = [((o.box[0] + o.box[2]) / 2, (o.box[1] + o.box[3]) / 2) for o in found]
    inside = [seen[0] <= x < seen[2] and seen[1] <= y < seen[3] for x, y in centres]
    if not found or any(inside):
        return []
    return [Caution("", -1, f"The model's input shows none of the picture's {len(found)} shapes (they lie outside the "
                            "part it reads): every method's verdict here is about empty canvas, not the shapes.", 1.0)]


def judge(state: ImageState, scores: Mapping[str, Sequence[Score]], untrained: Sequence[str] = ()) -> list[Caution]:
    """Every trained method's weak evidence on the state's picture (the view every method read)."""
    mask = objects_mask(state)
    if mask is None:
        return []
    out: list[Caution] = []
    for name, pair in scores.items():
        if name in untrained:
            continue
        judged = REGISTRY[name].info.cautions if name in REGISTRY else None
        for which, score in enumerate(pair):
            out += judged(name, which, score.evidence, mask) if judged else []
    return out
