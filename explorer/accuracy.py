"""Accuracy on any benchmark: one loop that scores items with methods, one outcome per item, one summary in percent.

An item's outcome comes from its similarities ``s[c, i]`` (caption c, image i). A ``SwapItem`` (two images, two
captions) is right by text when each image prefers its own caption, by image when each caption prefers its own
image, and by group when both (Winoground). A ``ChoiceItem`` (one image, several captions) is right when its
right caption scores strictly above every other (ties fail). The CLI's ``eval``, the Browse tab and the model cards
all go through ``score_chunk``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np
from PIL import Image

from explorer import cancel
from explorer import world
from explorer.benchmark_registry import benchmark as registered
from explorer.benchmark_registry import load_items
from explorer.encoders import keys_remembered
from explorer.intervals import percent_intervals
from explorer.items import Item, SwapItem
from explorer.shards import Progress, Shards

if TYPE_CHECKING:  # the methods pull in spaCy; the metrics alone need none of them
    from explorer.methods import ScoringMethod

SWAP_SCORES = ("text", "image", "group")


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


def similarities(method: ScoringMethod, images: Sequence[Image.Image], captions: Sequence[str]) -> np.ndarray:
    """``s[c, i]`` for every caption and image of one item."""
    cols = [[sc.value for sc in method.score(im, captions)] for im in images]
    return np.array(cols).T


def outcome(item: Item, s: np.ndarray) -> dict:
    """What an item's similarities say: ``{"text", "image", "s"}`` for a swap item, ``{"hit"}`` for a choice item,
    each with its ``margin``: how far the closest comparison the verdict rests on is from flipping (positive when
    right; a swap item's four group comparisons, a choice item's right caption against the best other)."""
    if isinstance(item, SwapItem):
        o = swap_outcome(s)
        margin = min(s[0, 0] - s[1, 0], s[1, 1] - s[0, 1], s[0, 0] - s[0, 1], s[1, 1] - s[1, 0])
        return {"text": o.text, "image": o.image, "s": s.round(6).tolist(), "margin": round(float(margin), 6)}
    others = np.delete(s[:, 0], item.right)
    margin = s[item.right, 0] - others.max()
    return {"hit": bool(s[item.right, 0] > others.max()), "margin": round(float(margin), 6)}


def is_right(found: dict) -> bool:
    """An ``outcome``'s verdict: the group score of a swap item, the hit of a choice item."""
    return found["hit"] if "hit" in found else found["text"] and found["image"]


def _size(method: ScoringMethod, render_size: int | None) -> int | None:
    return render_size or getattr(method.encoder, "image_size", None)


def score_chunk(methods: Sequence[ScoringMethod], part: Sequence[Item], render_size: int | None = None) -> list[dict]:
    """``{METHOD: outcome}`` for each item of a chunk, the one scoring loop. Each item's images are read (or world
    scenes rendered, at ``render_size`` or else each method's own input size) once and shared by the methods; each
    method prepares the chunk's images together (batched encoding) before scoring them."""
    found: list[dict] = [{} for _ in part]
    loaded: dict[int | None, list[list[Image.Image]]] = {}
    with keys_remembered():
        for method in methods:
            cancel.check()  # a page's request given up stops here (a no-op in the CLI)
            size = _size(method, render_size)
            if size not in loaded:
                loaded[size] = [it.pictures(size) for it in part]
            pictures = loaded[size]
            method.prepare([im for ims in pictures for im in ims])
            for out, it, ims in zip(found, part, pictures):
                out[method.name] = outcome(it, similarities(method, ims, it.captions))
    return found


def percentages(records: Sequence[dict], metric: str = "accuracy") -> dict:
    """Percent of outcomes right as text / image / group (swap items) or as ``metric`` (choice items), the count,
    and each score's 95% bootstrap interval (``ci``)."""
    names = (metric,) if records and "hit" in records[0] else SWAP_SCORES
    rows = [[r["hit"]] if "hit" in r else [r["text"], r["image"], r["text"] and r["image"]] for r in records]
    hits = np.array(rows, dtype=bool).reshape(len(records), len(names))
    # from the integer count, so a percentage that ends in an exact half (435 of 800) rounds the same every time
    values = [round(100.0 * int(col.sum()) / len(records), 2) if len(records) else 0.0 for col in hits.T]
    return {**dict(zip(names, values)), "n": len(records), "ci": dict(zip(names, percent_intervals(hits)))}


def grouped(groups: Sequence[str], values: Sequence, score: Callable[[Sequence], dict], overall: bool = True) -> dict:
    """``score`` of each group's values (groups in order of first appearance), and ``"all"`` of every value."""
    by_group: dict[str, list] = defaultdict(list)
    for group, value in zip(groups, values):
        by_group[group].append(value)
    out = {g: score(v) for g, v in by_group.items()}
    if overall:
        out["all"] = score([v for vs in by_group.values() for v in vs])
    return out


def evaluate_items(methods: Sequence[ScoringMethod], items: Sequence[Item], benchmark: str = "world",
                   render_size: int | None = None, progress: Progress | None = None, shards: Shards | None = None,
                   task: str | None = None) -> dict[str, dict]:
    """``{METHOD: {KIND: percentages, "all": ...}}`` for items of a benchmark (its chunk size and summary).

    The items are one task of ``shards`` (default: this process alone, nothing kept on disk).
    """
    b = registered(benchmark)
    shards = shards or Shards()
    found = shards.outcomes(task or b.name, items, partial(score_chunk, methods, render_size=render_size), b.chunk,
                            progress)
    kinds = [it.kind for it in items]
    score = partial(percentages, metric=b.metric)
    return {m.name: grouped(kinds, [f[m.name] for f in found], score, b.overall) for m in methods}


def evaluate(methods: Sequence[ScoringMethod], benchmark: str, limit: int | None, splits: Sequence[str] = world.SPLITS,
             data: Path | None = None, images: Path | None = None, render_size: int | None = None,
             shards: Shards | None = None, progress: Progress | None = None) -> dict:
    """``{METHOD: {SPLIT: scores}}`` for a world benchmark (each split one task of ``shards``), ``{METHOD: scores}``
    for a public one; ``limit`` items per split and kind, or per category."""
    b = registered(benchmark)
    if b.from_files:
        items = load_items(benchmark, data, limit, images)
        return evaluate_items(methods, items, benchmark, render_size, progress, shards)
    results: dict = {m.name: {} for m in methods}
    for split in splits:
        found = evaluate_items(methods, load_items(benchmark, limit=limit, split=split), benchmark, render_size,
                               progress, shards, task=split)
        for name, scores in found.items():
            results[name][split] = scores
    return results
