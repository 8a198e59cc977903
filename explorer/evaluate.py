"""Benchmark runner and metrics: Winoground-style text / image / group scores, and retrieval."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

import numpy as np
from PIL import Image
from tqdm import tqdm

from explorer import world

if TYPE_CHECKING:  # the methods pull in spaCy; the metrics alone need none of them
    from explorer.methods import ScoringMethod

Progress = Callable[[Iterable], Iterable]


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


def summarize(outcomes: Sequence[Outcome]) -> dict[str, float]:
    """Percentages of text, image and group successes, and the count."""
    n = len(outcomes)
    if n == 0:
        return {"text": 0.0, "image": 0.0, "group": 0.0, "n": 0}
    pct = lambda xs: round(100.0 * sum(xs) / n, 2)  # noqa: E731
    return {
        "text": pct(o.text for o in outcomes),
        "image": pct(o.image for o in outcomes),
        "group": pct(o.group for o in outcomes),
        "n": n,
    }


def item_similarities(method: ScoringMethod, images: Sequence[Image.Image], captions: Sequence[str]) -> np.ndarray:
    """``s[c, i]`` for every caption and image of one item."""
    cols = [[sc.value for sc in method.score(im, captions)] for im in images]
    return np.array(cols).T


def chunks(items: Sequence, size: int) -> list[Sequence]:
    """Consecutive slices of at most ``size`` items."""
    return [items[i : i + size] for i in range(0, len(items), size)]


def _tqdm(desc: str) -> Progress:
    return lambda it: tqdm(it, desc=desc, unit="batch", leave=False)


def evaluate_swaps(
    method: ScoringMethod,
    items: Sequence[world.SwapItem],
    render_size: int,
    progress: Progress | None = None,
    chunk: int = 32,
) -> dict[str, dict[str, float]]:
    """Scores per kind and over all kinds, for world swap items."""
    progress = progress or _tqdm(method.name)
    by_kind: dict[str, list[Outcome]] = defaultdict(list)
    for part in progress(chunks(items, chunk)):
        rendered = [[sc.render(render_size) for sc in it.images] for it in part]
        method.prepare([im for pair in rendered for im in pair])
        for it, imgs in zip(part, rendered):
            by_kind[it.kind].append(swap_outcome(item_similarities(method, imgs, it.captions)))
    out = {k: summarize(v) for k, v in by_kind.items()}
    out["all"] = summarize([o for v in by_kind.values() for o in v])
    return out


def evaluate_single(
    method: ScoringMethod,
    items: Sequence[world.SingleItem],
    render_size: int,
    progress: Progress | None = None,
    chunk: int = 64,
) -> dict[str, float]:
    """Top-1 retrieval of each single-object image's caption among all objects' captions."""
    progress = progress or _tqdm(method.name)
    hits = 0
    for part in progress(chunks(items, chunk)):
        images = [it.scene.render(render_size) for it in part]
        method.prepare(images)
        for it, im in zip(part, images):
            values = [sc.value for sc in method.score(im, it.captions)]
            hits += int(np.argmax(values) == it.label)
    return {"top1": round(100.0 * hits / max(1, len(items)), 2), "n": len(items)}


def evaluate_world(
    methods: Sequence[ScoringMethod],
    benchmark: str,
    splits: Sequence[str],
    limit: int,
    kinds: Sequence[str] = world.KINDS,
    render_size: int | None = None,
) -> dict:
    """``{METHOD: {SPLIT: {KIND: scores}}}`` for ``world``, or ``{"single": ...}`` for ``world-single``."""
    results: dict = {}
    for method in methods:
        size = render_size or method.encoder.image_size
        per_split = {}
        for split in splits:
            desc = f"{method.name}/{split}"
            if benchmark == "world":
                items = [it for kind in kinds for it in world.swap_items(split, kind, limit)]
                per_split[split] = evaluate_swaps(method, items, size, _tqdm(desc))
            elif benchmark == "world-single":
                items = world.single_items(split, limit)
                per_split[split] = {"single": evaluate_single(method, items, size, _tqdm(desc))}
            else:
                raise ValueError(f"unknown world benchmark {benchmark!r}")
        results[method.name] = per_split
    return results
