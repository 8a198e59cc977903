"""Where TFLocal's evidence is weak on a drawing: layers whose attention sits on the background."""

from __future__ import annotations

import numpy as np

from explorer.images.regions import patch_mask
from explorer.methods.results import Caution
from explorer.methods.tflocal.method import AttentionEvidence


def attention_on_objects(evidence: AttentionEvidence, mask: np.ndarray) -> np.ndarray:
    """The share of each layer's attention (mean over heads and tokens) that falls on patches of the objects' (H, W)
    ``mask``: (layers,)."""
    on = patch_mask(mask, evidence.grid, evidence.box)
    return evidence.attention.mean(axis=(1, 2))[:, on].sum(axis=1)


def tflocal_cautions(name: str, which: int, evidence: AttentionEvidence, mask: np.ndarray) -> list[Caution]:
    """Layers whose attention falls on the objects (``mask``, (H, W)) no more than on any patch (their share of the
    grid)."""
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
