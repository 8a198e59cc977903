"""Where SGI's evidence is weak on a drawing: an object's segment matched to a region that is mostly canvas."""

from __future__ import annotations

import numpy as np

from explorer.methods.results import MOSTLY_BACKGROUND, Caution, object_share
from explorer.methods.sgi.method import SGIEvidence


def sgi_cautions(name: str, which: int, evidence: SGIEvidence, mask: np.ndarray) -> list[Caution]:
    """Each object segment matched to a region that is mostly canvas (the objects' pixels: ``mask``, (H, W))."""
    out = []
    for match in evidence.matches:
        if match.segment.kind != "object":
            continue
        share = object_share(mask, evidence.regions[match.crop].box)
        if share < 1 - MOSTLY_BACKGROUND:
            where = "empty canvas, with no shape in it" if share == 0 else f"{1 - share:.0%} empty canvas"
            out.append(Caution(name, which, f"SGI matched \"{match.prompt}\" to a region that is {where}: its "
                                            f"cosine {match.similarity:.3f} there says little about that object.",
                               1 - share))
    return out
