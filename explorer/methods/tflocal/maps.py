"""TFLocal's map per caption segment, read off its evidence: the cross-attention of the segment's tokens."""

from __future__ import annotations

import torch
from PIL import Image

from explorer.drawing.maps import upsample
from explorer.language.text import Segment, segments
from explorer.methods.results import Maps, peak
from explorer.methods.tflocal.method import AttentionEvidence
from explorer.models.encoders import DualEncoder

# TFLocal's layer whose cross-attention is read (None: the mean over its layers; always the mean over its heads).
# Chosen on val-id and val-heldout (40 items per kind): layer 0 points on the named object for 57.1 and 53.9% of
# segments, layers 1 and 2 for 36.9 / 38.4 and 37.7 / 36.5, their mean for 55.5 / 52.0
TFLOCAL_LAYER: int | None = 0


def _word_spans(caption: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for word in caption.split():
        start = caption.index(word, start)
        spans.append((start, start + len(word)))
        start += len(word)
    return spans


def segment_tokens(caption: str, segment: Segment, token_word: tuple[int, ...]) -> list[int]:
    """The encoder's tokens (by index among the caption's content tokens) of the words the segment covers."""
    words = {w for w, (a, b) in enumerate(_word_spans(caption)) if a < segment.chars[1] and b > segment.chars[0]}
    return [t for t, w in enumerate(token_word) if w in words]


def tflocal_maps(encoder: DualEncoder, image: Image.Image, caption: str, evidence: AttentionEvidence,
                 layer: int | None = TFLOCAL_LAYER) -> Maps:
    """TFLocal's cross-attention of each segment's tokens over the patches, read off its evidence (averaged over the
    tokens, the heads and the layers or the one ``layer``)."""
    token_word = encoder.encode_texts([caption])[0].token_word
    out = {}
    for seg in segments(caption):
        chosen = segment_tokens(caption, seg, token_word)
        if chosen:
            grid = torch.from_numpy(evidence.attention_map(chosen, layer, None))
            out[seg.chars] = peak(upsample(grid, image.size, evidence.box))
    return out
