"""Every map the pointing game judges, per caption segment: the explainers' maps, the scoring methods' own evidence
(each method whose ``MethodInfo`` has a ``segment_map``, read by its folder's reader through its public ``score`` and
its evidence dataclasses), and two baselines (a uniform random map, a centre-biased one).

A ``Pointer`` is a map over the image (>= 0) and the point it names: a map's peak; for a crop or a subset, its centre.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
import torch
from PIL import Image

from explorer.drawing.maps import upsample
from explorer.explain.base import Explainer
from explorer.language.text import segments
from explorer.methods import REGISTRY, ScoringMethod, SegmentMap, get_method, in_page_order
from explorer.methods.results import Maps, Pointer, peak
from explorer.models.encoders import DualEncoder

BASELINES = ("random", "center")
CENTER_SIGMA = 0.25  # the centre-biased map's Gaussian, in image sides


def segment_map(name: str) -> SegmentMap | None:
    """How method ``name`` reads a map for each caption segment off its evidence (its ``MethodInfo``); None where it
    has none, or no such method is registered."""
    return REGISTRY[name].info.segment_map if name in REGISTRY else None


def method_sources() -> list[str]:
    """The methods with a map per segment (``MethodInfo.segment_map``), in the page's order."""
    return [cls.name for cls in in_page_order() if cls.info.segment_map is not None]


Source = Callable[[Image.Image, Sequence[str]], list[Maps]]  # an image and its captions -> each caption's maps


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


def method_source(encoder: DualEncoder, name: str, read: Callable[..., Maps] | None = None) -> Source | None:
    """Method ``name``'s maps, read off its evidence by its ``segment_map`` (or ``read``); None where it runs on
    untrained weights for this encoder (a trained head it lacks)."""
    method = get_method(name, encoder)
    if not method.trained:
        return None
    if read is None and segment_map(name) is None:
        raise ValueError(f"{name!r} reads no map per segment off its evidence (no segment_map in its MethodInfo)")
    read = read or segment_map(name).read
    return _each_caption(method, lambda image, caption, evidence: read(encoder, image, caption, evidence))


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
