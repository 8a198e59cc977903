"""Benchmark runner and metrics: Winoground-style text / image / group scores, and retrieval."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np
from PIL import Image
from tqdm import tqdm

from explorer import world
from explorer.intervals import percent_intervals
from explorer.shards import Progress, Shards, chunks

if TYPE_CHECKING:  # the methods pull in spaCy; the metrics alone need none of them
    from explorer.methods import ScoringMethod

SWAP_CHUNK, SINGLE_CHUNK = 32, 64  # items scored together: the unit of sharding too


@dataclass(frozen=True)
class Outcome:
    text: bool
    image: bool

    @property
    def group(self) -> bool:
        return self.text and self.image


def swap_outcome(s: np.ndarray) -> Outcome:
    """``s[c, i]`` = similarity of caption c and image i, for a two-caption, two-image item."""
    text = s[0, 0] > s[1, 0] and s[1, 1] > s[0, 1]
    image = s[0, 0] > s[0, 1] and s[1, 1] > s[1, 0]
    return Outcome(bool(text), bool(image))


def summarize(outcomes: Sequence[Outcome]) -> dict:
    """Percentages of text, image and group successes, the count, and their 95% bootstrap intervals (``ci``)."""
    n = len(outcomes)
    hits = np.array([[o.text, o.image, o.group] for o in outcomes], dtype=bool).reshape(n, 3)
    values = [round(100.0 * float(col.mean()), 2) if n else 0.0 for col in hits.T]
    names = ("text", "image", "group")
    return {**dict(zip(names, values)), "n": n, "ci": dict(zip(names, percent_intervals(hits)))}


def hit_rate(records: Sequence[dict], name: str) -> dict:
    """Percent of ``{"hit"}`` outcomes that hit as ``name``, the count, and its 95% bootstrap interval."""
    hits = np.array([r["hit"] for r in records], dtype=bool)
    value = round(100.0 * float(hits.mean()), 2) if len(hits) else 0.0
    return {name: value, "n": len(hits), "ci": {name: percent_intervals(hits)[0]}}


def item_similarities(method: ScoringMethod, images: Sequence[Image.Image], captions: Sequence[str]) -> np.ndarray:
    """``s[c, i]`` for every caption and image of one item."""
    cols = [[sc.value for sc in method.score(im, captions)] for im in images]
    return np.array(cols).T


def swap_record(method: ScoringMethod, images: Sequence[Image.Image], captions: Sequence[str]) -> dict:
    """One two-image item's outcome: ``{"text", "image", "s"}`` with the similarities ``s[c][i]``."""
    s = item_similarities(method, images, captions)
    o = swap_outcome(s)
    return {"text": o.text, "image": o.image, "s": s.round(6).tolist()}


def grouped(groups: Sequence[str], values: Sequence, score: Callable[[Sequence], dict]) -> dict:
    """``score`` of each group's values (groups in order of first appearance), and ``"all"`` of every value."""
    by_group: dict[str, list] = defaultdict(list)
    for group, value in zip(groups, values):
        by_group[group].append(value)
    out = {g: score(v) for g, v in by_group.items()}
    out["all"] = score([v for vs in by_group.values() for v in vs])
    return out


def swap_scores(groups: Sequence[str], records: Sequence[dict]) -> dict:
    """Text / image / group scores per group and over all, from ``swap_record`` outcomes."""
    return grouped(groups, [Outcome(r["text"], r["image"]) for r in records], summarize)


def top1(records: Sequence[dict]) -> dict:
    """Single-object top-1: percent of ``{"hit"}`` outcomes that hit, the count and the interval."""
    return hit_rate(records, "top1")


def _tqdm(desc: str) -> Progress:
    return lambda it: tqdm(it, desc=desc, unit="batch", leave=False)


def score_swaps(methods: Sequence[ScoringMethod], part: Sequence[world.SwapItem], render_size: int | None = None,
                ) -> list[dict]:
    """``{METHOD: swap_record}`` for each world swap item of a chunk."""
    found: list[dict] = [{} for _ in part]
    for method in methods:
        size = render_size or method.encoder.image_size
        rendered = [[sc.render(size) for sc in it.images] for it in part]
        method.prepare([im for pair in rendered for im in pair])
        for out, it, imgs in zip(found, part, rendered):
            out[method.name] = swap_record(method, imgs, it.captions)
    return found


def score_single(methods: Sequence[ScoringMethod], part: Sequence[world.SingleItem], render_size: int | None = None,
                 ) -> list[dict]:
    """``{METHOD: {"hit"}}`` for each single-object item of a chunk: is its caption the top-1 of all objects'?"""
    found: list[dict] = [{} for _ in part]
    for method in methods:
        size = render_size or method.encoder.image_size
        images = [it.scene.render(size) for it in part]
        method.prepare(images)
        for out, it, im in zip(found, part, images):
            values = [sc.value for sc in method.score(im, it.captions)]
            out[method.name] = {"hit": bool(np.argmax(values) == it.label)}
    return found


def evaluate_swaps(
    method: ScoringMethod,
    items: Sequence[world.SwapItem],
    render_size: int,
    progress: Progress | None = None,
    chunk: int = SWAP_CHUNK,
) -> dict[str, dict[str, float]]:
    """Scores per kind and over all kinds, for world swap items."""
    progress = progress or _tqdm(method.name)
    parts = progress(chunks(items, chunk))
    found = [r[method.name] for part in parts for r in score_swaps([method], part, render_size)]
    return swap_scores([it.kind for it in items], found)


def evaluate_single(
    method: ScoringMethod,
    items: Sequence[world.SingleItem],
    render_size: int,
    progress: Progress | None = None,
    chunk: int = SINGLE_CHUNK,
) -> dict[str, float]:
    """Top-1 retrieval of each single-object image's caption among all objects' captions."""
    progress = progress or _tqdm(method.name)
    parts = progress(chunks(items, chunk))
    return top1([r[method.name] for part in parts for r in score_single([method], part, render_size)])


def evaluate_world(
    methods: Sequence[ScoringMethod],
    benchmark: str,
    splits: Sequence[str],
    limit: int,
    kinds: Sequence[str] = world.KINDS,
    render_size: int | None = None,
    shards: Shards | None = None,
) -> dict:
    """``{METHOD: {SPLIT: {KIND: scores}}}`` for ``world``, or ``{"single": ...}`` for ``world-single``.

    Each split is one task of ``shards`` (default: this process alone, nothing kept on disk).
    """
    shards = shards or Shards()
    results: dict = {m.name: {} for m in methods}
    for split in splits:
        if benchmark == "world":
            items = [it for kind in kinds for it in world.swap_items(split, kind, limit)]
            score, chunk = score_swaps, SWAP_CHUNK
        elif benchmark == "world-single":
            items = world.single_items(split, limit)
            score, chunk = score_single, SINGLE_CHUNK
        else:
            raise ValueError(f"unknown world benchmark {benchmark!r}")
        found = shards.outcomes(split, items, partial(score, methods, render_size=render_size), chunk)
        for m in methods:
            records = [f[m.name] for f in found]
            results[m.name][split] = (swap_scores([it.kind for it in items], records) if benchmark == "world"
                                      else {"single": top1(records)})
    return results
