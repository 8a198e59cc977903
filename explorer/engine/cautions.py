"""Where a method's evidence is weak or off the objects, judged on a drawing's own objects and said in words a
student reads: SGI's match mostly empty canvas, PowerCLIP's best regions background, TFLocal's attention on the
background, the model's input showing none of the objects.

Only a picture drawn on plain paper is judged (``ink.on_paper``): there the objects are known (``proposals.objects``)
and everything else is canvas. A photo gets no caution: what is "background" in it is not known here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from explorer.core.image_state import ImageState
from explorer.images.ink import on_paper
from explorer.images.regions import Box, patch_mask
from explorer.methods import Score
from explorer.methods import proposals
from explorer.methods.powerset_method import PowersetEvidence
from explorer.methods.sgi import SGIEvidence
from explorer.methods.tflocal import AttentionEvidence

MOSTLY_BACKGROUND = 5 / 6  # a region whose objects fill less than a sixth of it (it is 6 times their size) is canvas


@dataclass(frozen=True)
class Caution:
    """One weak piece of evidence: the method it judges ("" for every method), the caption whose evidence it is
    (0: A, 1: B; -1: the picture's), the sentence the page shows beside the verdict, and the share behind it (of the
    region that is canvas, or of the attention that falls on the objects)."""

    method: str
    caption: int
    text: str
    share: float
    per_layer: tuple[float, ...] = ()  # TFLocal: the share of each layer's attention on the objects


def objects_mask(state: ImageState) -> np.ndarray | None:
    """The pixels of the objects drawn on the state's plain paper; None for a photo or an empty canvas."""
    if on_paper(state.image) is None:
        return None
    found = proposals.objects(state).objects
    return np.logical_or.reduce([o.mask for o in found]) if found else None


def _object_share(mask: np.ndarray, box: Box) -> float:
    x0, y0, x1, y1 = (max(0, v) for v in box)
    inside = mask[y0:y1, x0:x1]
    return float(inside.mean()) if inside.size else 0.0


def sgi_cautions(name: str, which: int, evidence: SGIEvidence, mask: np.ndarray) -> list[Caution]:
    """Each object segment matched to a region that is mostly canvas."""
    out = []
    for match in evidence.matches:
        if match.segment.kind != "object":
            continue
        share = _object_share(mask, evidence.regions[match.crop].box)
        if share < 1 - MOSTLY_BACKGROUND:
            where = "empty canvas, with no shape in it" if share == 0 else f"{1 - share:.0%} empty canvas"
            out.append(Caution(name, which, f"SGI matched \"{match.prompt}\" to a region that is {where}: its "
                                            f"cosine {match.similarity:.3f} there says little about that object.",
                               1 - share))
    return out


def powerset_cautions(name: str, which: int, evidence: PowersetEvidence, mask: np.ndarray) -> list[Caution]:
    """The whole caption's best region subset lying on canvas."""
    root = next((a for a in evidence.alignments if a.node.parent is None), None)
    if root is None or not root.best:
        return []
    union = np.logical_or.reduce([evidence.regions[k].mask for k in root.best if evidence.regions[k].mask is not None])
    if not np.any(union):
        return []
    share = float((union & mask).sum() / union.sum())
    if share >= 1 - MOSTLY_BACKGROUND:
        return []
    return [Caution(name, which, f"PowerCLIP's best regions for the whole caption are background ({1 - share:.0%} of "
                                 "their pixels are empty canvas): its score rests on no shape.", 1 - share)]


def attention_on_objects(evidence: AttentionEvidence, mask: np.ndarray) -> np.ndarray:
    """The share of each layer's attention (mean over heads and tokens) that falls on patches of the objects."""
    on = patch_mask(mask, evidence.grid, evidence.box)
    return evidence.attention.mean(axis=(1, 2))[:, on].sum(axis=1)


def tflocal_cautions(name: str, which: int, evidence: AttentionEvidence, mask: np.ndarray) -> list[Caution]:
    """Layers whose attention falls on the objects no more than on any patch (their share of the grid)."""
    if evidence.grid == (1, 1) or not mask.any():
        return []
    shares = attention_on_objects(evidence, mask)
    fair = float(patch_mask(mask, evidence.grid, evidence.box).mean())  # what attention spread evenly puts there
    low = [k for k, s in enumerate(shares) if s <= fair]
    if not low:
        return []
    layers = ", ".join(str(k + 1) for k in low)
    which_layers = "every layer" if len(low) == len(shares) else f"layer{'s' if len(low) > 1 else ''} {layers}"
    return [Caution(name, which, f"At {which_layers}, TFLocal's attention sits on the background: at most "
                                 f"{max(shares[k] for k in low):.0%} of it falls on the shapes, which cover {fair:.0%} "
                                 "of the picture, so its outline there does not show it looking at them.",
                    float(min(shares[k] for k in low)), tuple(round(float(s), 4) for s in shares))]


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
        for which, score in enumerate(pair):
            evidence = score.evidence
            if isinstance(evidence, SGIEvidence):
                out += sgi_cautions(name, which, evidence, mask)
            elif isinstance(evidence, PowersetEvidence):
                out += powerset_cautions(name, which, evidence, mask)
            elif isinstance(evidence, AttentionEvidence):
                out += tflocal_cautions(name, which, evidence, mask)
    return out
