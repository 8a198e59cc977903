"""Ground truth for every map: over world swap items, where each map source looks for each caption segment, judged
by the objects' exact masks (``python -m explorer pointing``).

For a segment naming an object of its picture ("a red square" on a red square and a blue circle):
- pointing game: the map's point (its peak; a crop's or a subset's centre) lies inside that object's mask;
- energy share: the fraction of the map's positive relevance inside that mask.
For a segment naming a colour-shape pair absent from its picture (the swapped caption's "a red circle" there), the
swap probe: the same two readings on the object with the named shape and on the one with the named colour.

Each reading is a percentage: the mean over items of each item's mean over its segments, with a 95% interval that
resamples the items (``explorer.core.intervals``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np
from tqdm import tqdm

from explorer import world
from explorer.core import intervals
from explorer.explain.base import REGISTRY, explainers_for, get_explainer
from explorer.explain.sanity import sanity_report
from explorer.explain.sources import BASELINES, CENTER_SIGMA, Pointer, method_sources, segment_map, sources
from explorer.language.text import segments
from explorer.models.encoders import DualEncoder

log = logging.getLogger(__name__)

PRESENT = ("pointing", "energy")
SWAP = ("shape_pointing", "colour_pointing", "shape_energy", "colour_energy")


@dataclass(frozen=True)
class Case:
    """A segment of a caption on a picture, with the masks it is judged by: ``named`` for an object the picture
    holds; ``shape`` and ``colour`` for a pair it does not (the objects with the named shape, and colour)."""

    chars: tuple[int, int]
    named: np.ndarray | None = None
    shape: np.ndarray | None = None
    colour: np.ndarray | None = None


def cases(picture: Any, caption: str, size: int) -> list[Case]:
    """The caption's object segments on ``picture`` that name an object it holds, or swap one's colour and shape;
    relation segments and others name no one object and are left out."""
    objects, masks = picture.objects, picture.masks(size)
    out = []
    for seg in segments(caption):
        words = seg.text.split()
        colour = next((w for w in words if w in world.COLORS), None)
        shape = next((w for w in words if w in world.SHAPES), None)
        if seg.kind != "object" or colour is None or shape is None:
            continue
        named = [i for i, o in enumerate(objects) if o.combo == (colour, shape)]
        shaped = [i for i, o in enumerate(objects) if o.shape == shape and o.color != colour]
        coloured = [i for i, o in enumerate(objects) if o.color == colour and o.shape != shape]
        if named:
            out.append(Case(seg.chars, named=masks[named].any(0)))
        elif shaped and coloured:
            out.append(Case(seg.chars, shape=masks[shaped].any(0), colour=masks[coloured].any(0)))
    return out


def energy(pointer: Pointer, mask: np.ndarray) -> float:
    """The share of the map's positive mass inside ``mask`` (0 for a map with none)."""
    heat = np.clip(pointer.map, 0, None)
    total = float(heat.sum())
    return float(heat[mask].sum()) / total if total > 0 else 0.0


def inside(pointer: Pointer, mask: np.ndarray) -> float:
    x, y = pointer.point
    return float(mask[y, x])


def readings(case: Case, pointer: Pointer) -> dict[str, float]:
    """The case's readings of one map, in percent."""
    if case.named is not None:
        found = {"pointing": inside(pointer, case.named), "energy": energy(pointer, case.named)}
    else:
        found = {"shape_pointing": inside(pointer, case.shape), "colour_pointing": inside(pointer, case.colour),
                 "shape_energy": energy(pointer, case.shape), "colour_energy": energy(pointer, case.colour)}
    return {k: 100 * v for k, v in found.items()}


@dataclass
class Tally:
    """Per source, per split: each item's readings (its segments' lists), for the means and the intervals."""

    items: dict[str, dict[str, list[dict[str, list[float]]]]] = field(default_factory=dict)

    def add(self, source: str, split: str, item: dict[str, list[float]]) -> None:
        self.items.setdefault(source, {}).setdefault(split, []).append(item)

    def table(self, metrics: Sequence[str]) -> dict[str, dict[str, dict]]:
        """``{source: {split: {metric..., "n", "ci"}}}`` over the items holding those metrics."""
        out: dict[str, dict[str, dict]] = {}
        for source, splits in self.items.items():
            for split, items in splits.items():
                rows = [it for it in items if it.get(metrics[0])]
                if not rows:
                    continue
                per_item = np.array([[np.mean(it[m]) for m in metrics] for it in rows]) / 100
                means = {m: round(float(100 * v), 2) for m, v in zip(metrics, per_item.mean(0))}
                ci = intervals.percent_intervals(per_item)
                out.setdefault(source, {})[split] = {**means, "n": sum(len(it[metrics[0]]) for it in rows),
                                                     "ci": dict(zip(metrics, ci))}
        return out


def score_item(item: Any, size: int, found: dict[str, Callable], tally: Tally) -> None:
    """Every source's readings of one swap item's pictures and captions (each picture with both captions)."""
    per: dict[str, dict[str, list[float]]] = {name: {} for name in found}
    for picture in item.images:
        image = picture.render(size)
        judged = [cases(picture, caption, image.width) for caption in item.captions]
        for name, source in found.items():
            for maps, caption_cases in zip(source(image, item.captions), judged):
                for case in caption_cases:
                    if case.chars in maps:
                        for metric, value in readings(case, maps[case.chars]).items():
                            per[name].setdefault(metric, []).append(value)
    for name, values in per.items():
        tally.add(name, item.split, values)


def default_sources(encoder: DualEncoder) -> list[str]:
    return [*explainers_for(encoder.model), *method_sources(), *BASELINES]


def pointing_report(encoder: DualEncoder, splits: Sequence[str], limit: int, names: Sequence[str] | None = None,
                    sanity_images: int = 0, command: str = "") -> dict:
    """The pointing game, the energy shares and the swap probe of every source over ``limit`` swap items per split
    and kind; with ``sanity_images``, the randomization check over that many pictures of the first split."""
    names = list(names or default_sources(encoder))
    known = [*REGISTRY, *method_sources(), *BASELINES]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown map sources {unknown}; known: {', '.join(known)}")
    explainers = {n: get_explainer(n, encoder) for n in names if n in REGISTRY and REGISTRY[n].applies(encoder.model)}
    found = sources(encoder, names, explainers)
    left = sorted(set(names) - set(found))
    if left:
        log.info("no map from %s for %s (not applicable, or untrained)", ", ".join(left), encoder.label)
    tally = Tally()
    items = [it for split in splits for kind in world.KINDS for it in world.swap_items(split, kind, limit)]
    for item in tqdm(items, desc="pointing", unit="item"):
        score_item(item, encoder.image_size, found, tally)
    report = {"benchmark": "world", "model": encoder.label, "command": command, "splits": list(splits),
              "limit": limit, "kinds": list(world.KINDS), "sources": list(found), "not_available": left,
              "settings": {**{n: {k: getattr(e, k) for k in e.settings} for n, e in explainers.items()},
                           **{n: dict(segment_map(n).recorded) for n in method_sources() if segment_map(n).recorded},
                           "center": {"sigma": CENTER_SIGMA}},
              "interval": {**intervals.METHOD, "unit": "items (each the mean of its segments)"},
              "results": tally.table(PRESENT), "swap_probe": tally.table(SWAP)}
    if sanity_images:
        pairs = [pair for it in items if it.split == splits[0] for pair in zip(it.images, it.captions)]
        report["sanity"] = sanity_report(encoder, list(explainers), pairs[:sanity_images])
    return report
