"""Every model against every benchmark: each model scored on the same items of each benchmark, one table of models x
benchmarks x headline figures (each benchmark's paper's figure with its 95% bootstrap interval), and each model's
paired difference from the first on that figure's verdicts with McNemar's exact p (``explorer.eval.compare``)."""

from __future__ import annotations

import gc
import logging
from typing import TYPE_CHECKING, Any, Callable, Sequence

from explorer.core.data_roots import DataAccess
from explorer.eval.accuracy import Found, benchmark_tasks, item_outcomes, placed, summary
from explorer.eval.benchmark_registry import Benchmark
from explorer.eval.benchmark_registry import benchmark as registered
from explorer.eval.compare import grouped, pairs_scored, with_holm
from explorer.eval.headline import POOLED

if TYPE_CHECKING:
    from explorer.core.shards import Shards
    from explorer.methods import ScoringMethod

log = logging.getLogger(__name__)
# a model's scoring methods, its encoder loaded when called, and where its outcomes are kept (read back by a rerun)
Loader = Callable[[], tuple[Sequence["ScoringMethod"], "Shards"]]


def figure(benchmark: str, cell: dict) -> str:
    """The score of a cell its benchmark's paper reports: its own (MMVP's image score), the group score of items
    with several images, else its metric."""
    b = registered(benchmark)
    return b.figure or ("group" if "group" in cell else b.metric)


def verdict(outcome: Any, score: str) -> bool:
    """An item's verdict on ``score``: the image score where that is the figure, else its ``correct``."""
    return bool(outcome.image) if score == "image" else outcome.correct


def _is_cells(node: dict) -> bool:
    """Whether ``node`` holds a public benchmark's cells (each a dict with its count), not a world one's splits."""
    return any(isinstance(v, dict) and "n" in v for v in node.values())


def _headline_cells(results: dict, b: Benchmark) -> list[tuple[str, str, str, dict]]:
    """(method, split, kind, cell) of one model's results on one benchmark (split "" for a public one): its "all"
    cell (kind "all"); where its paper reports other cells as its headline (``reported``: SPEC's i2t and t2i), those;
    where it reports each kind's figure (``per_kind``: ARO) each kind's cell, the pooled ones kept beside a macro
    figure left out."""
    out = []
    for method, node in results.items():
        tops = [("", node)] if _is_cells(node) else list(node.items())
        for split, cells in tops:
            if b.reported:
                out += [(method, split, kind, cells[kind]) for kind in b.reported if kind in cells]
            elif b.per_kind:
                out += [(method, split, kind, cell) for kind, cell in cells.items()
                        if kind not in ("all", POOLED) and not kind.endswith(f" {POOLED}") and isinstance(cell, dict)]
            elif "all" in cells:
                out.append((method, split, "all", cells["all"]))
    return out


def table_rows(model: str, benchmark: str, results: dict) -> list[dict]:
    """One row per method and split (and kind, where its paper reports each kind's): the benchmark's headline
    figure, its interval and count."""
    rows = []
    for method, split, kind, cell in _headline_cells(results, registered(benchmark)):
        score = figure(benchmark, cell)
        low, high = cell.get("ci", {}).get(score, (None, None))
        rows.append({"model": model, "benchmark": benchmark, "split": split, "kind": kind, "method": method,
                     "score": score, "value": cell.get(score), "low": low, "high": high, "n": cell.get("n")})
    return rows


def paired_kind(benchmark: str, item: Any) -> str:
    """The cell an item's paired verdict counts in: its direction where its paper's headline cells are the two
    directions (SPEC), else its kind."""
    return item.info.get("direction", item.kind) if registered(benchmark).reported else item.kind


def paired_cells(benchmark: str, methods: Sequence[str], kinds: Sequence[str], first: Sequence[Found],
                 other: Sequence[Found]) -> dict[str, dict]:
    """``{METHOD: {KIND: paired, "all": ...}}``: another model against the first on the benchmark's figure, over the
    items both read."""
    score = "image" if registered(benchmark).figure == "image" else "group"
    out = {}
    for method in methods:
        kept = [(k, (verdict(a[method], score), verdict(b[method], score))) for k, a, b in zip(kinds, first, other)
                if isinstance(a, dict) and isinstance(b, dict)]
        out[method] = grouped([k for k, _ in kept], [p for _, p in kept], pairs_scored)
    return out


def evaluate_models(models: Sequence[tuple[str, Loader]], benchmarks: Sequence[str], limit: int | None,
                    splits: Sequence[str], data: Any = None, images: Any = None, access: DataAccess = DataAccess(),
                    view: str | None = None, strict_ties: bool = False) -> dict:
    """Each model (a label and its loader, loaded one at a time) on the same items of each benchmark: ``results``
    (``{MODEL: {BENCHMARK: accuracy.evaluate's shape}}``), ``table`` (``table_rows`` of each), ``paired``
    (``{MODEL: {BENCHMARK: {METHOD: {SPLIT: {KIND: paired}}}}}`` against the first model, Holm-adjusted over all of
    a model's cells), ``paired_rows`` (the headline cells of ``paired`` as rows: "all", or each kind's for ARO) and
    ``resumed`` (per model, the outcomes read back from its shards and why the others were scored)."""
    tasks = {b: benchmark_tasks(b, limit, splits, data, images, access, view, strict_ties) for b in benchmarks}
    found: dict[str, dict[str, list]] = {}
    results: dict[str, dict] = {}
    resumed: dict[str, dict[str, int]] = {}
    names: list[str] = []
    for label, load in models:
        methods, shards = load()
        names = [m.name for m in methods]
        for b, parts in tasks.items():
            found.setdefault(label, {})[b] = [item_outcomes(methods, items, b, shards=shards, task=f"{b}/{split or ''}")
                                              for split, items in parts]
            for (split, items), outcomes in zip(parts, found[label][b]):
                placed(results.setdefault(label, {}).setdefault(b, {}), split, summary(methods, items, outcomes, b))
        resumed[label] = shards.resumed()
        del methods
        gc.collect()  # one model's weights held at a time
    first, paired, rows = models[0][0], {}, []
    for label, _ in models[1:]:
        for b, parts in tasks.items():
            cells: dict = {}
            for (split, items), a, o in zip(parts, found[first][b], found[label][b]):
                placed(cells, split, paired_cells(b, names, [paired_kind(b, it) for it in items], a, o))
            paired.setdefault(label, {})[b] = cells
        with_holm(paired[label])
        rows += [{"model": label, "against": first, "benchmark": b, "split": split, "kind": kind, "method": method,
                  **cell} for b, cells in paired[label].items()
                 for method, split, kind, cell in _headline_cells(cells, registered(b))]
    table = [row for label, by_b in results.items() for b, res in by_b.items() for row in table_rows(label, b, res)]
    return {"models": [m for m, _ in models], "benchmarks": list(benchmarks), "table": table,
            "paired": paired, "paired_rows": [_flat(r) for r in rows], "results": results, "resumed": resumed}


def _flat(row: dict) -> dict:
    """A paired row with its interval as ``low`` and ``high``."""
    low, high = row.pop("ci")
    return {**row, "low": low, "high": high}


