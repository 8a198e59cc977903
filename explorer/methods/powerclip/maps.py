"""PowerCLIP's map per caption segment, read off its evidence: the subset chosen for the smallest phrase holding it."""

from __future__ import annotations

import numpy as np
from PIL import Image

from explorer.language.text import segments
from explorer.methods.powerclip.method import PowerCLIPEvidence
from explorer.methods.results import Maps, region
from explorer.models.encoders import DualEncoder


def powerclip_maps(encoder: DualEncoder, image: Image.Image, caption: str, evidence: PowerCLIPEvidence) -> Maps:
    """PowerCLIP's chosen subset for each segment (the smallest phrase of its tree that holds the segment), read off
    its evidence: the union of the subset's regions."""
    out = {}
    for seg in segments(caption):
        (start, end), holding = seg.chars, evidence.alignments
        chosen = min((a for a in holding if a.node.chars[0] <= start and end <= a.node.chars[1]),
                     key=lambda a: a.node.chars[1] - a.node.chars[0])
        mask = np.any([evidence.regions[r].mask for r in chosen.best], axis=0)
        if mask.any():
            out[seg.chars] = region(mask)
    return out
