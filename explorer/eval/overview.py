"""Every loaded item at a glance (Browse's overview): each method's verdict and margin per item, scored once per item
and model, under one model or two (A and B side by side); one method against another, or one model against the other
on a method, as a matrix (both right, fixes, breaks, both wrong) whose cells are slices; slices sorted by how close a
call was, and written out as CSV and JSON."""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from explorer.core.cache import LRUCache
from explorer.core.csv_cells import write_csv
from explorer.core.items import Item
from explorer.core.shards import chunks
from explorer.eval.accuracy import Found, Unreadable, score_chunk
from explorer.eval.browse import BROWSE_SIZE, CHUNK
from explorer.eval.compare import paired
from explorer.methods import ScoringMethod

SCORED_KEPT = 50_000  # items' outcomes kept, all models together: Browse's largest load is 12,000 items
CELLS = ("both right", "fixes", "breaks", "both wrong")  # a method against a baseline: the matrix's cells
MODELS = ("A", "B")  # with a second model, each verdict and margin column is named "A: LABEL" or "B: LABEL"
_SCORED: LRUCache[Found] = LRUCache(SCORED_KEPT)


def _key(model: str, methods: Iterable[str], item: Item) -> str:
    """An item as scored by a model's methods: its id, category, captions and images (a file's path, a scene)."""
    what = repr((model, sorted(methods), item.id, item.category, item.captions, item.images))
    return hashlib.sha1(what.encode()).hexdigest()


def score_items(methods: Mapping[str, ScoringMethod], model: str, items: Sequence[Item],
                progress: Callable[[Iterable], Iterable] = lambda it: it) -> list[Found]:
    """Each item's ``{method name: outcome}``, through the one scoring loop; an item this model's methods scored
    before comes from the cache, so a second overview of the same items runs no analysis."""
    keys = [_key(model, methods, it) for it in items]
    todo = [i for i, k in enumerate(keys) if k not in _SCORED]
    for part in progress(list(chunks(todo, CHUNK))):
        for i, found in zip(part, score_chunk(list(methods.values()), [items[i] for i in part], BROWSE_SIZE)):
            _SCORED.put(keys[i], found)
    return [_SCORED.get(k) for k in keys]


def frame(items: Sequence[Item], outcomes: Sequence[Found], methods: Mapping[str, ScoringMethod],
          model: str = "") -> pd.DataFrame:
    """One row per item: its position among the loaded items, id, category, and per method (by label, after
    ``model``'s "A: " or "B: " when given) its verdict ("right", "wrong", "n/a" where untrained, "unreadable" where
    the item's images cannot be read) and its margin (positive when right; empty where there is no verdict)."""
    rows = []
    for position, (item, found) in enumerate(zip(items, outcomes)):
        row: dict = {"item": position, "id": item.id, "category": item.category}
        for name, method in methods.items():
            scored = method.trained and not isinstance(found, Unreadable)
            verdict = "unreadable" if isinstance(found, Unreadable) else "n/a"
            column = column_of(method.label, model)
            row[column] = ("right" if found[name].correct else "wrong") if scored else verdict
            row[f"{column} margin"] = found[name].margin if scored else math.nan
        rows.append(row)
    return pd.DataFrame(rows)


def column_of(label: str, model: str = "") -> str:
    """A method's verdict column: its label, after "A: " or "B: " when two models are shown."""
    return f"{model}: {label}" if model else label


def two_models(items: Sequence[Item], outcomes: tuple[Sequence[Found], Sequence[Found]],
               methods: tuple[Mapping[str, ScoringMethod], Mapping[str, ScoringMethod]]) -> pd.DataFrame:
    """``frame`` of model A and of model B on the same items, side by side: per method A's verdict and margin, then
    B's ("A: global cosine", "A: global cosine margin", "B: global cosine", ...)."""
    a, b = (frame(items, found, ms, model) for found, ms, model in zip(outcomes, methods, MODELS))
    labels = [m.label for m in methods[0].values()]
    columns = [f"{column_of(label, model)}{end}" for label in labels for model in MODELS for end in ("", " margin")]
    both = pd.concat([a, b.drop(columns=["item", "id", "category"])], axis=1)
    return both[["item", "id", "category", *[c for c in columns if c in both]]]


def cell_of(method: pd.Series, baseline: pd.Series) -> pd.Series:
    """Each row's matrix cell for ``method`` (verdicts) against ``baseline``: both right, fixes (the method right
    where the baseline is wrong), breaks (the reverse), both wrong; "n/a" where either is untrained."""
    out = np.select([(method == "right") & (baseline == "right"), (method == "right") & (baseline == "wrong"),
                     (method == "wrong") & (baseline == "right"), (method == "wrong") & (baseline == "wrong")],
                    CELLS, default="n/a")
    return pd.Series(out, index=method.index)


def matrix(table: pd.DataFrame, method: str, baseline: str) -> pd.DataFrame:
    """The 2 x 2 counts of ``method`` against ``baseline`` (labels): rows the baseline's verdict, columns the
    method's; each cell names its slice."""
    cells = cell_of(table[method], table[baseline]).value_counts()
    count = lambda cell: int(cells.get(cell, 0))  # noqa: E731
    return pd.DataFrame({"": [f"{baseline} right", f"{baseline} wrong"],
                         f"{method} right": [f"both right: {count('both right')}", f"fixes: {count('fixes')}"],
                         f"{method} wrong": [f"breaks: {count('breaks')}", f"both wrong: {count('both wrong')}"]})


def paired_of(table: pd.DataFrame, method: str, baseline: str) -> dict:
    """``compare.paired`` of ``baseline``'s verdicts (A) and ``method``'s (B) on the rows where both have one: the
    difference in points, its paired bootstrap interval and McNemar's exact p."""
    both = table[table[method].isin(("right", "wrong")) & table[baseline].isin(("right", "wrong"))]
    return paired(both[baseline] == "right", both[method] == "right")


def slice_of(table: pd.DataFrame, category: str = "all", method: str | None = None, baseline: str | None = None,
             cell: str | None = None, closest: bool = False) -> pd.DataFrame:
    """The rows of ``category`` ("all": every one) in ``cell`` of ``method`` against ``baseline`` (None: every
    cell); with ``closest``, the smallest margins of ``method`` first (the calls nearest to flipping)."""
    rows = table if category in (None, "", "all") else table[table["category"] == category]
    if cell is not None and method and baseline:
        rows = rows[cell_of(rows[method], rows[baseline]) == cell]
    if closest and method:
        rows = rows.iloc[rows[f"{method} margin"].abs().argsort(kind="stable")]
    return rows


def export(rows: pd.DataFrame, folder: Path, name: str = "browse-slice",
           models: Mapping[str, str] | None = None) -> tuple[Path, Path]:
    """The slice written as ``NAME.csv`` and ``NAME.json`` (records) in ``folder``; with ``models`` ({"A": label,
    "B": label}), a column naming each model after the category, so that the file says what A and B are."""
    folder.mkdir(parents=True, exist_ok=True)
    if models:
        rows = rows.copy()
        for i, (model, label) in enumerate(models.items()):
            rows.insert(3 + i, f"model {model}", label)
    csv_path, json_path = folder / f"{name}.csv", folder / f"{name}.json"
    write_csv(rows, csv_path)
    rows.to_json(json_path, orient="records", indent=1)
    return csv_path, json_path
