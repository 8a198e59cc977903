"""Where PowerCLIP's evidence is weak on a drawing: the best regions for the whole caption are background."""

from __future__ import annotations

import numpy as np

from explorer.methods.powerclip.method import PowerCLIPEvidence
from explorer.methods.results import MOSTLY_BACKGROUND, Caution


def powerclip_cautions(name: str, which: int, evidence: PowerCLIPEvidence, mask: np.ndarray) -> list[Caution]:
    """The whole caption's best region subset lying on canvas (the objects' pixels: ``mask``, (H, W))."""
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
