"""Every map the pointing game judges, per caption segment: the explainers' maps, the scoring methods' own evidence
(each method whose ``MethodInfo`` has a ``segment_map``: TFLocal's cross-attention for the segment's tokens, SGI's
chosen crop and PowerCLIP's chosen subset, whose readers are here), read through their public ``score`` and its
evidence dataclasses, and two baselines (a uniform random map, a centre-biased one).

A ``Pointer`` is a map over the image (>= 0) and the point it names: a map's peak; for a crop or a subset, its centre.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
import torch
from PIL import Image

from explorer.models.encoders import DualEncoder
from explorer.explain.base import Explainer, upsample
from explorer.methods import REGISTRY, ScoringMethod, SegmentMap, get_method, in_page_order, resolve
from explorer.methods.base import Pointer, peak, region
from explorer.language.text import Segment, segments

BASELINES = ("random", "center")
CENTER_SIGMA = 0.25  # the centre-biased map's Gaussian, in image sides
# TFLocal's layer whose cross-attention is read (None: the mean over its layers; always the mean over its heads).
# Chosen on val-id and val-heldout (40 items per kind): layer 0 points on the named object for 57.1 and 53.9% of
# segments, layers 1 and 2 for 36.9 / 38.4 and 37.7 / 36.5, their mean for 55.5 / 52.0
TFLOCAL_LAYER: int | None = 0


def segment_map(name: str) -> SegmentMap | None:
    """How method ``name`` reads a map for each caption segment off its evidence (its ``MethodInfo``); None where it
    has none, or no such method is registered."""
    return REGISTRY[name].info.segment_map if name in REGISTRY else None


def method_sources() -> list[str]:
    """The methods with a map per segment (``MethodInfo.segment_map``), in the page's order."""
    return [cls.name for cls in in_page_order() if cls.info.segment_map is not None]


Maps = dict[tuple[int, int], Pointer]  # a caption segment's character span -> its pointer
Source = Callable[[Image.Image, Sequence[str]], list[Maps]]  # an image and its captions -> each caption's maps


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


def _each_caption(method: ScoringMethod, caption_maps: Callable[[Image.Image, str, Any], Maps]) -> Source:
    """A method's source: its scores of the image's captions, and each caption's maps read off its evidence."""
    def maps(image: Image.Image, captions: Sequence[str]) -> list[Maps]:
        return [caption_maps(image, s.caption, s.evidence) for s in method.score(image, captions)]

    return maps


def explainer_source(explainer: Explainer) -> Source:
    def maps(image: Image.Image, captions: Sequence[str]) -> list[Maps]:
        found = explainer.explain_all(image, captions)
        return [{r.segment.chars: peak(r.map) for r in explanation.segments} for explanation in found]

    return maps


def tflocal_maps(encoder: DualEncoder, image: Image.Image, caption: str, evidence: Any,
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


def sgi_maps(encoder: DualEncoder, image: Image.Image, caption: str, evidence: Any) -> Maps:
    """SGI's chosen crop for each segment, read off its evidence: its box."""
    out = {}
    for match in evidence.matches:
        x0, y0, x1, y1 = evidence.regions[match.crop].box
        mask = np.zeros((image.height, image.width), dtype=bool)
        mask[y0:y1, x0:x1] = True
        out[match.segment.chars] = region(mask)
    return out


def powerset_maps(encoder: DualEncoder, image: Image.Image, caption: str, evidence: Any) -> Maps:
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


def method_source(encoder: DualEncoder, name: str, read: Callable[..., Maps] | None = None) -> Source | None:
    """Method ``name``'s maps, read off its evidence by its ``segment_map`` (or ``read``); None where it runs on
    untrained weights for this encoder (TFLocal without a trained head)."""
    method = get_method(name, encoder)
    if not method.trained:
        return None
    if read is None and segment_map(name) is None:
        raise ValueError(f"{name!r} reads no map per segment off its evidence (no segment_map in its MethodInfo)")
    read = read or resolve(segment_map(name).read)
    return _each_caption(method, lambda image, caption, evidence: read(encoder, image, caption, evidence))


def tflocal_source(encoder: DualEncoder, layer: int | None = TFLOCAL_LAYER) -> Source | None:
    """TFLocal's maps (``tflocal_maps``) from its cross-attention at ``layer``; None where no trained TFLocal exists
    for this encoder."""
    return method_source(encoder, "tflocal", lambda *args: tflocal_maps(*args, layer=layer))


def random_source(grid: tuple[int, int], seed: int = 0) -> Source:
    """A uniform random value per patch of the model's grid, upsampled: the chance level of a map."""
    rng = np.random.default_rng(seed)

    def maps(image: Image.Image, caption: str) -> Maps:
        return {seg.chars: peak(upsample(torch.from_numpy(rng.random(grid)), image.size, (0, 0, *image.size)))
                for seg in segments(caption)}

    return lambda image, captions: [maps(image, c) for c in captions]


def center_source() -> Source:
    """A Gaussian around the image's centre (``CENTER_SIGMA`` of its side): where a map that ignores the image and
    bets on the middle points."""
    def maps(image: Image.Image, caption: str) -> Maps:
        w, h = image.size
        ys, xs = np.mgrid[0:h, 0:w]
        heat = np.exp(-(((xs - (w - 1) / 2) / w) ** 2 + ((ys - (h - 1) / 2) / h) ** 2) / (2 * CENTER_SIGMA ** 2))
        pointer = Pointer(heat.astype(np.float32), (w // 2, h // 2))
        return {seg.chars: pointer for seg in segments(caption)}

    return lambda image, captions: [maps(image, c) for c in captions]


def sources(encoder: DualEncoder, names: list[str], explainers: dict[str, Explainer]) -> dict[str, Source]:
    """The named sources that exist for this encoder (a method's only with trained weights)."""
    grid = encoder.grid
    makers: dict[str, Callable[[], Source | None]] = {"random": lambda: random_source(grid), "center": center_source}
    out = {}
    for name in names:
        if name in explainers:
            made = explainer_source(explainers[name])
        else:
            made = makers[name]() if name in makers else method_source(encoder, name)
        if made is not None:
            out[name] = made
    return out
