"""SGI's map per caption segment, read off its evidence: the crop it chose for the segment."""

from __future__ import annotations

import numpy as np
from PIL import Image

from explorer.methods.results import Maps, region
from explorer.methods.sgi.method import SGIEvidence
from explorer.models.encoders import DualEncoder


def sgi_maps(encoder: DualEncoder, image: Image.Image, caption: str, evidence: SGIEvidence) -> Maps:
    """SGI's chosen crop for each segment, read off its evidence: its box, and its cosine with the segment."""
    out = {}
    for match in evidence.matches:
        x0, y0, x1, y1 = evidence.regions[match.crop].box
        mask = np.zeros((image.height, image.width), dtype=bool)
        mask[y0:y1, x0:x1] = True
        out[match.segment.chars] = region(mask, match.similarity)
    return out
