"""Accuracy on any benchmark: one loop that scores items with methods, one outcome per item, one summary in percent.

An item's outcome comes from its similarities ``s[c, i]`` (caption c, image i) by one rule, whatever its shape: it is
right by text when each image's own caption scores above every other caption on that image, by image when each own
caption scores higher on its image than on every other image, and by group when both (Winoground's three scores on a
2 x 2 swap item). Every comparison is strict: a tie fails. An item with one image has no image score; its verdict is
its top-1 (SugarCrepe's: the right caption above every foil). The CLI's ``eval``, the Browse tab, the model cards, the
``recognition`` readings and the recipe sweep all go through ``score_chunk``.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np
from PIL import Image

from explorer import world
from explorer.core import cancel, settings
from explorer.core.data_roots import DataAccess
from explorer.core.image_state import ImageState
from explorer.core.intervals import percent_intervals
from explorer.core.items import NO_CAPTION, Item
from explorer.core.shards import Progress, Shards
from explorer.eval.benchmark_registry import benchmark as registered
from explorer.eval.benchmark_registry import load_items
from explorer.eval.dataset_loaders import DatasetError
from explorer.eval.headline import POOLED, macro_by_kind, mean_over_kinds
from explorer.eval.item_keys import item_keys
from explorer.eval.layouts import with_extras
from explorer.images.fit import view_state
from explorer.methods import proposals

if TYPE_CHECKING:
    from explorer.methods import ScoringMethod  # the methods pull in spaCy; the metrics alone need none of them

log = logging.getLogger(__name__)
SWAP_SCORES = ("text", "image", "group")


@dataclass(frozen=True)
class Outcome:
    """What one item's similarities say (``outcome``)."""

    text: bool  # each image's own caption above every other caption on it (one image: the top-1 hit)
    image: bool | None  # each own caption higher on its image than on every other image; None with one image
    margin: float  # how far the closest comparison the verdict rests on is from flipping, positive when right
    picked: tuple[int, ...]  # each image's answer: its own caption if above every other, else the best other one

    @property
    def correct(self) -> bool:
        """The verdict: the group score (an item with one image: its top-1 hit)."""
        return self.text and self.image is not False

    def record(self) -> dict:
        """As a plain dict (a shard file keeps outcomes as JSON)."""
        return asdict(self)

    @classmethod
    def read(cls, record: dict) -> Outcome:
        return cls(**{**record, "picked": tuple(record["picked"])})


@dataclass(frozen=True)
class Unreadable:
    """An item whose images cannot be read (a damaged, cut-short or oversized file): left out of every score and
    named, with ``why``, instead of ending the run."""

    why: str


Found = dict[str, Outcome] | Unreadable  # an item's outcome by method name, or why it was left out


def similarities(method: ScoringMethod, images: Sequence[Image.Image | ImageState],
                 captions: Sequence[str]) -> np.ndarray:
    """``s[c, i]`` for every caption and image of one item: (captions, images)."""
    cols = [[sc.value for sc in method.score(im, captions)] for im in images]
    return np.array(cols).T


def outcome(item: Item, s: np.ndarray) -> Outcome:
    """What ``s[c, i]`` (captions, images) says of the item (the module's rule). The margin is the smallest of the
    differences the verdict rests on, rounded to 6 places: each own caption against the best other caption on its image,
    and (two images or more) against itself on every other image; a 2 x 2 item's four group comparisons, a one-image
    item's right caption against its best foil; an item's ``also_right`` captions count as its own (each must beat every
    foil) and are no foils. An own caption tied with another is not picked: the best other one is (the first of them on
    a tie). An item with one caption is told among its images: right when its caption scores higher on its own image
    than on every other (its top-1 image, ``by_image``)."""
    if len(item.captions) == 1:
        return by_image(item, s)
    picked, gaps, image = [], [], None if len(item.images) == 1 else True
    for i, own in enumerate(item.right):
        owns = (own, *item.also_right)
        foils = [c for c in range(len(s)) if c not in owns]
        best = foils[int(s[foils, i].argmax())]
        picked.append(own if min(s[c, i] for c in owns) > s[best, i] else best)
        gaps += [s[c, i] - s[best, i] for c in owns]
        for j in range(s.shape[1]):
            if j != i:
                image = image and bool(s[own, i] > s[own, j])
                gaps.append(s[own, i] - s[own, j])
    if item.info.get("ties") == "first":  # the authors' argmax: the first of the highest captions is the answer
        picked = [int(s[:, i].argmax()) for i in range(len(item.right))]
    return Outcome(picked == list(item.right), image, round(float(min(gaps)), 6), tuple(picked))


def by_image(item: Item, s: np.ndarray) -> Outcome:
    """The outcome of an item with one caption and several images (text to image), ``s`` (captions, images): a hit when
    the caption scores higher on its own image than on every other (the first of the highest images with the authors'
    argmax, ``info ["ties"] == "first"``); ``picked`` holds the image it picks."""
    own = next(i for i, c in enumerate(item.right) if c != NO_CAPTION)
    others = [j for j in range(s.shape[1]) if j != own]
    best = others[int(s[0, others].argmax())]
    first = item.info.get("ties") == "first"
    pick = int(s[0].argmax()) if first else own if s[0, own] > s[0, best] else best
    return Outcome(pick == own, None, round(float(s[0, own] - s[0, best]), 6), (pick,))


def _size(method: ScoringMethod, render_size: int | None) -> int | None:
    return render_size or getattr(method.encoder, "image_size", None)


def view_of(item: Item) -> str:
    """The view an item's pictures are read in: its own (a public benchmark's authors', or the one asked), else the
    setting's."""
    return item.info.get("view") or settings.current().view


def _states(item: Item, size: int | None) -> list[ImageState] | Unreadable:
    """The item's images as states, or why they cannot be read (the rest of its chunk is scored all the same)."""
    try:
        return [view_state(im, view_of(item)) for im in item.pictures(size)]
    except DatasetError as exc:
        log.warning("left out %s: %s", item.id or item.kind, exc)
        return Unreadable(str(exc))


def score_chunk(methods: Sequence[ScoringMethod], part: Sequence[Item],
                render_size: int | None = None) -> list[Found]:
    """``{METHOD: Outcome}`` for each item of a chunk, the one scoring loop (``Unreadable`` for an item whose images
    cannot be read). Each item's images are read (or world scenes rendered, at ``render_size`` or else each method's
    own input size) once, as image states shared by the methods (``explorer.core.image_state``); each method prepares the
    chunk's states together (batched encoding) before scoring them."""
    found: list[Found] = [{} for _ in part]
    loaded: dict[int | None, list[list[ImageState] | Unreadable]] = {}
    needed = [p for m in methods for p in m.proposers()]
    for method in methods:
        cancel.check()  # a page's request given up stops here (a no-op in the CLI)
        size = _size(method, render_size)
        if size not in loaded:
            loaded[size] = [_states(it, size) for it in part]
            if needed:  # every method's proposals started as the images' states are made, beside their encoding
                proposals.start_ahead(_readable(loaded[size]), needed, method.encoder.device)
        states = loaded[size]
        method.prepare(_readable(states))
        for k, (it, ss) in enumerate(zip(part, states)):
            if isinstance(ss, Unreadable):
                found[k] = ss
            elif isinstance(out := found[k], dict):
                out[method.name] = outcome(it, similarities(method, ss, it.captions))
    return found


def _readable(states: Sequence[list[ImageState] | Unreadable]) -> list[ImageState]:
    return [s for ss in states if not isinstance(ss, Unreadable) for s in ss]


def percentages(records: Sequence[Outcome], metric: str = "accuracy") -> dict:
    """Percent of outcomes right as text / image / group (items with several images) or as ``metric`` (items with
    one image: their top-1), the count, and each score's 95% bootstrap interval (``ci``)."""
    names = (metric,) if records and records[0].image is None else SWAP_SCORES
    rows = [[o.text] if o.image is None else [o.text, o.image, o.correct] for o in records]
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


def _record(found: Found) -> dict:
    """An item's outcomes as a shard file keeps them: by method, or why the item was left out."""
    if isinstance(found, Unreadable):
        return {"unreadable": found.why}
    return {"outcomes": {name: o.record() for name, o in found.items()}}


def _read(record: dict) -> Found:
    if "unreadable" in record:
        return Unreadable(record["unreadable"])
    return {name: Outcome.read(r) for name, r in record["outcomes"].items()}


def _records(methods: Sequence[ScoringMethod], render_size: int | None, part: Sequence[Item]) -> list[dict]:
    return [_record(found) for found in score_chunk(methods, part, render_size)]


def item_outcomes(methods: Sequence[ScoringMethod], items: Sequence[Item], benchmark: str = "world",
                  render_size: int | None = None, progress: Progress | None = None, shards: Shards | None = None,
                  task: str | None = None) -> list[Found]:
    """Each item's ``{METHOD: Outcome}`` (or ``Unreadable``) from ``score_chunk``, the items scored in chunks of
    ``benchmark``'s size.

    The items are one task of ``shards`` (default: this process alone, nothing kept on disk; a shard file keeps each
    outcome's ``record``, read back by a rerun only where the item's content is the same: ``item_keys``).
    """
    b, shards = registered(benchmark), shards or Shards()
    keys = item_keys(items) if shards.path else None  # a stored outcome is read back only for the same content
    found = shards.outcomes(task or b.name, items, partial(_records, methods, render_size), b.chunk, progress, keys)
    return [_read(record) for record in found]


def summary(methods: Sequence[ScoringMethod], items: Sequence[Item], outcomes: Sequence[Found],
            benchmark: str = "world", left_out: list[str] | None = None) -> dict[str, dict]:
    """``{METHOD: {KIND: percentages, "all": ...}}`` of items' outcomes (the benchmark's summary); each item whose
    images cannot be read is left out, and said in ``left_out``."""
    b = registered(benchmark)
    unreadable = [(it, f) for it, f in zip(items, outcomes) if isinstance(f, Unreadable)]
    if left_out is not None:
        left_out += [f"{it.id or it.kind}: {f.why}" for it, f in unreadable]
    kept = [(it, f) for it, f in zip(items, outcomes) if not isinstance(f, Unreadable)]
    kinds, found = [it.kind for it, _ in kept], [f for _, f in kept]
    score = partial(percentages, metric=b.metric)
    results = {m.name: grouped(kinds, [f[m.name] for f in found], score, b.overall) for m in methods}
    if b.headline == "mean":  # its paper's figure: the mean over subsets or pieces; the pooled one kept by name
        for m in methods:
            cells = results[m.name]
            cells[POOLED] = cells.pop("all")
            cells["all"] = mean_over_kinds(kinds, [f[m.name].correct for f in found], b.metric)
    if b.groups is not None:  # its paper's figure per kind: the mean over the groups its authors count (ARO's)
        groups = b.groups([it for it, _ in kept])
        for m in methods:
            results[m.name] = macro_by_kind(results[m.name], kinds, groups, [f[m.name].correct for f in found],
                                            b.metric)
    if b.extras is None or not methods:  # the scores its authors count beside these (What'sUp's pairs, TOT)
        return results
    more = b.extras([it for it, _ in kept], {m.name: [f[m.name] for f in found] for m in methods}, methods[0].encoder)
    return with_extras(results, more)


def evaluate_items(methods: Sequence[ScoringMethod], items: Sequence[Item], benchmark: str = "world",
                   render_size: int | None = None, progress: Progress | None = None, shards: Shards | None = None,
                   task: str | None = None, left_out: list[str] | None = None) -> dict[str, dict]:
    """``summary`` of items of a benchmark (its chunk size and summary), their outcomes from ``item_outcomes``."""
    outcomes = item_outcomes(methods, items, benchmark, render_size, progress, shards, task)
    return summary(methods, items, outcomes, benchmark, left_out)


def benchmark_tasks(benchmark: str, limit: int | None, splits: Sequence[str] = world.SPLITS, data: Path | None = None,
                    images: Path | None = None, access: DataAccess = DataAccess(),
                    view: str | None = None, strict_ties: bool = False) -> list[tuple[str | None, list[Item]]]:
    """An evaluation's items as tasks: ``(SPLIT, items)`` per world split, or ``(None, items)`` for a public
    benchmark's files; ``limit`` items per split and kind, or per category; files read as ``access`` allows; each
    item read in ``view`` where asked (else its benchmark's reading, ``Benchmark.reading``), and a tie counted a miss
    everywhere with ``strict_ties``."""
    if registered(benchmark).from_files:
        return [(None, load_items(benchmark, data, limit, images, access=access, view=view, strict_ties=strict_ties))]
    return [(split, load_items(benchmark, limit=limit, split=split, view=view, strict_ties=strict_ties))
            for split in splits]


def placed(results: dict, split: str | None, found: dict[str, dict]) -> dict:
    """``found`` (``{METHOD: scores}``) put into ``results`` under each method, and under ``split`` when one."""
    for name, scores in found.items():
        if split is None:
            results[name] = scores
        else:
            results.setdefault(name, {})[split] = scores
    return results


def evaluate(methods: Sequence[ScoringMethod], benchmark: str, limit: int | None, splits: Sequence[str] = world.SPLITS,
             data: Path | None = None, images: Path | None = None, render_size: int | None = None,
             shards: Shards | None = None, progress: Progress | None = None, access: DataAccess = DataAccess(),
             left_out: list[str] | None = None, view: str | None = None, strict_ties: bool = False) -> dict:
    """``{METHOD: {SPLIT: scores}}`` for a world benchmark (each split one task of ``shards``), ``{METHOD: scores}``
    for a public one; ``limit`` items per split and kind, or per category; its files read as ``access`` allows, and
    each item whose images cannot be read said in ``left_out``; the pictures read in ``view`` where asked, else as
    the benchmark's authors read them (``Benchmark.reading``); a tie a miss everywhere with ``strict_ties``."""
    results: dict = {m.name: {} for m in methods}
    for split, items in benchmark_tasks(benchmark, limit, splits, data, images, access, view, strict_ties):
        placed(results, split, evaluate_items(methods, items, benchmark, render_size, progress, shards, task=split,
                                              left_out=left_out))
    return results
