"""Browsing a benchmark item by item (any benchmark of ``explorer.eval.benchmark_registry``): the filters, and what each
method says of one item. The verdicts are ``explorer.eval.accuracy``'s, the same as the evaluation's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np
from PIL import Image

from explorer.core.items import DEFAULT_SIZE, Item
from explorer.core.shards import chunks
from explorer.eval.accuracy import outcome, score_chunk, similarities, view_of
from explorer.images.fit import view_state
from explorer.images.inputs import InputError, whole_number
from explorer.methods import ScoringMethod

BROWSE_SIZE = DEFAULT_SIZE  # world scenes are shown, and scored by the filter, at this size
CHUNK = 32
MAX_PER_CATEGORY = 1000  # the world's 12 split-kind cells at this size: 12,000 items, quick enough to draw


def items_per_category(value: float | str | None) -> int:
    """Browse's "items per category" as a whole number from 1 to ``MAX_PER_CATEGORY``; anything else refused."""
    return whole_number(value, "Items per category", 1, MAX_PER_CATEGORY)


@dataclass(frozen=True)
class Reading:
    """One item by one model: its global cosines ``s[c, i]``, the rule for right, and each method's verdict by label
    (None where the method is untrained: its verdict means nothing)."""

    cosines: np.ndarray  # (captions, images)
    rule: str
    verdicts: dict[str, bool | None]


def rule(item: Item) -> str:
    """When an item counts as right, in words."""
    if len(item.captions) == 1:
        return f"the caption scored higher on image {item.right.index(0)} than on every other image"
    if len(item.images) == 1:
        owns = " and ".join(map(str, (item.right[0], *item.also_right)))
        return f"caption{'s' if item.also_right else ''} {owns} scored above every other caption"
    return "each image matched to its own caption, and each of those captions to its own image (the group score)"


def read(methods: Mapping[str, ScoringMethod], item: Item, images: Sequence[Image.Image]) -> Reading:
    """Every method's similarities on the item's loaded ``images`` read in its view (``accuracy.view_of``, as the
    evaluation reads them), and its verdict (``accuracy.outcome``)."""
    seen = [view_state(im, view_of(item)) for im in images]
    found = {name: similarities(m, seen, item.captions) for name, m in methods.items()}
    verdicts = {m.label: outcome(item, found[name]).correct if m.trained else None for name, m in methods.items()}
    return Reading(found["global"], rule(item), verdicts)


def reading_note(items: Sequence[Item]) -> str:
    """Where a public benchmark's items are read as its authors' script reads them, a sentence that says so (Browse's
    status); else nothing: the world's and your own pairs' pictures are read in the setting's view."""
    if not items or not all(it.info.get("view") == "raw" for it in items):
        return ""
    return (" Read as its authors' script reads it: each picture through the model's own preprocess, which "
            "centre-crops one that is not square.")


def for_main_page(item: Item) -> tuple[Any, str, str]:
    """The image and the two captions the main page compares: image 0, its own caption and the first other one
    (a swap item's two captions)."""
    if len(item.captions) == 1:
        raise InputError("this item tells one caption among pictures; the main page compares two captions on one "
                         "picture: send an item with two captions")
    own = item.right[0]
    return item.images[0], item.captions[own], next(c for i, c in enumerate(item.captions) if i != own)


def select(
    items: Sequence[Item],
    category: str | None = None,
    wrong_by: ScoringMethod | None = None,
    progress: Callable[[Iterable], Iterable] = lambda it: it,
) -> list[int]:
    """Indices of the items in ``category`` (all when None) that ``wrong_by`` gets wrong (all when None; an item
    whose images cannot be read is not wrong)."""
    keep = [i for i, it in enumerate(items) if category in (None, "", "all") or it.category == category]
    if wrong_by is None:
        return keep
    wrong = []
    for part in progress(chunks(keep, CHUNK)):
        found = score_chunk([wrong_by], [items[i] for i in part], BROWSE_SIZE)
        wrong += [i for i, f in zip(part, found) if isinstance(f, dict) and not f[wrong_by.name].correct]
    return wrong
