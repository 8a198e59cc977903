"""Public benchmarks whose published layouts or metrics differ from those of ``explorer.eval.dataset_loaders``:
ColorSwap, What'sUp, SugarCrepe++, VALSE and EqBen, one module each with its loader and, where the authors score it
otherwise than the project's text / image / group or accuracy, its own scores (``extras``)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Sequence

import numpy as np

from explorer.core.data_roots import OutsideRoots, inside
from explorer.core.intervals import percent_intervals
from explorer.eval.dataset_loaders import DatasetError, _read_json


def read_list(path: Path) -> list:
    """A JSON file that holds a list of items, or a ``DatasetError`` naming it."""
    rows = _read_json(path)
    if not isinstance(rows, list):
        raise DatasetError(f"{path.name}: expected a list of items, got {type(rows).__name__}")
    return rows


def shares(name: str, hits: Sequence[bool], value: float | None = None) -> dict:
    """One score of a cell as ``accuracy.percentages`` writes them: ``{name: percent, "ci": {name: interval}}``;
    ``value`` where the authors' formula gives the percentage otherwise than the hits' mean."""
    found = np.asarray(hits, dtype=bool)
    percent = value if value is not None else 100.0 * int(found.sum()) / len(found) if len(found) else 0.0
    return {name: round(percent, 2), "ci": {name: percent_intervals(found[:, None])[0]}}


def grouped_shares(name: str, kinds: Sequence[str], hits: Sequence[bool]) -> dict:
    """``shares`` of the hits of each kind (in order of first appearance) and of all of them, each with its count."""
    by_kind: dict[str, list[bool]] = defaultdict(list)
    for kind, hit in zip(kinds, hits):
        by_kind[kind].append(hit)
    return {k: {**shares(name, v), "n": len(v)} for k, v in [*by_kind.items(), ("all", list(hits))]}


def merged(cell: dict, more: dict) -> dict:
    """``cell`` with ``more``'s scores beside its own, their intervals in one ``ci``."""
    return {**cell, **{k: v for k, v in more.items() if k != "ci"}, "ci": {**cell.get("ci", {}), **more.get("ci", {})}}


def first_inside(root: Path, candidates: Sequence[Path | str]) -> Path:
    """The first of ``candidates`` (relative to ``root``) that is a file inside the benchmark's folders, else the
    first one that stays inside (its loading then says the file is missing); ``OutsideRoots`` when none does."""
    kept = []
    for name in candidates:
        try:
            path = inside(root / name)
        except OutsideRoots:
            continue
        if path.is_file():
            return path
        kept.append(path)
    if not kept:
        raise OutsideRoots("every place the image could be leads outside the benchmark's folder")
    return kept[0]


def with_extras(results: dict, more: dict) -> dict:
    """``results`` (``{METHOD: {KIND: scores}}``) with a benchmark's ``extras`` merged in, cell by cell."""
    out = {name: dict(kinds) for name, kinds in results.items()}
    for name, kinds in more.items():
        for kind, cell in kinds.items():
            kept = out.setdefault(name, {})
            kept[kind] = merged(kept.get(kind, {}), cell)
    return out
