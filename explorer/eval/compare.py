"""Model A against model B on the same items: the paired difference of their group scores, its bootstrap interval
over items, and McNemar's exact test on the items one gets right and the other wrong."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
from scipy.stats import binomtest

from explorer import world
from explorer.core.data_roots import DataAccess
from explorer.core.intervals import percent_intervals
from explorer.core.shards import Shards
from explorer.eval.accuracy import benchmark_tasks, grouped, item_outcomes, placed, summary
from explorer.eval.benchmark_registry import benchmark as registered

if TYPE_CHECKING:
    from explorer.methods import ScoringMethod

P_DIGITS = 4  # significant digits a p-value is recorded with (a tiny p stays readable, never rounded to 0)


def mcnemar_p(fixes: int, breaks: int) -> float:
    """McNemar's exact two-sided p: ``fixes`` (B right, A wrong) among the discordant items, against a fair coin
    (1.0 with no discordant item)."""
    n = fixes + breaks
    return 1.0 if n == 0 else float(binomtest(fixes, n, 0.5).pvalue)


def _percent(hits: np.ndarray, n: int) -> float:
    """Percent of ``n`` items, from the integer count (an exact half rounds the same every time)."""
    return round(100.0 * int(hits.sum()) / n, 2) if n else 0.0


def paired(a: Sequence[bool], b: Sequence[bool]) -> dict:
    """Two models' verdicts on the same items: ``a`` and ``b`` (percent right), ``diff`` (b - a, points), ``ci``
    (the difference's 95% paired bootstrap interval over items, with ``explorer.core.intervals``' resamples and
    seed), ``mcnemar_p``, ``n``, ``fixes`` (B right where A is wrong) and ``breaks`` (the reverse)."""
    a, b = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
    if a.shape != b.shape:
        raise ValueError(f"paired verdicts need the same items: {len(a)} against {len(b)}")
    n, fixes, breaks = len(a), int((b & ~a).sum()), int((a & ~b).sum())
    return {"a": _percent(a, n), "b": _percent(b, n), "diff": round(_percent(b, n) - _percent(a, n), 2),
            "ci": percent_intervals(b.astype(int) - a.astype(int))[0],
            "mcnemar_p": float(f"{mcnemar_p(fixes, breaks):.{P_DIGITS}g}"), "n": n, "fixes": fixes, "breaks": breaks}


def verdict_pairs(method: str, found_a: Sequence[Any], found_b: Sequence[Any]) -> list[tuple[bool, bool] | None]:
    """Each item's verdicts (A's, B's) by ``method``: an outcome's ``correct`` (the group score; one image: top-1);
    None where either model could not read the item's images."""
    return [(fa[method].correct, fb[method].correct) if isinstance(fa, dict) and isinstance(fb, dict) else None
            for fa, fb in zip(found_a, found_b)]


def pairs_scored(pairs: Sequence[tuple[bool, bool]]) -> dict:
    """``paired`` of a list of (A's verdict, B's verdict)."""
    return paired([p[0] for p in pairs], [p[1] for p in pairs])


def compared(methods: Sequence[str], kinds: Sequence[str], found_a: Sequence[Any], found_b: Sequence[Any],
             overall: bool = True) -> dict[str, dict]:
    """``{METHOD: {KIND: paired, "all": ...}}`` of two models' outcomes on the same items (``accuracy.Found``
    each), every item read by both."""
    out = {}
    for method in methods:
        kept = [(kind, p) for kind, p in zip(kinds, verdict_pairs(method, found_a, found_b)) if p is not None]
        out[method] = grouped([k for k, _ in kept], [p for _, p in kept], pairs_scored, overall)
    return out


def holm(p: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment of p-values (the family-wise error over all of them held at each one's level):
    the k-th smallest times the number left from it, never below the one before, at most 1."""
    order = np.argsort(p, kind="stable")
    steps = np.asarray(p, dtype=float)[order] * (len(p) - np.arange(len(p)))
    adjusted = np.empty(len(p))
    adjusted[order] = np.minimum(1.0, np.maximum.accumulate(steps))
    return [float(f"{v:.{P_DIGITS}g}") for v in adjusted]


def with_holm(comparison: dict) -> dict:
    """``comparison`` with ``mcnemar_p_holm`` beside each cell's ``mcnemar_p``: Holm's adjustment over every cell of
    it (each method, split and kind, one family), so that a difference read among many stays at the 5% level."""
    cells: dict[str, dict] = {}  # by path, in the comparison's order

    def walk(path: str, node: dict) -> None:
        if "mcnemar_p" in node:
            cells[path] = node
        else:
            for key, child in node.items():
                walk(f"{path}/{key}", child)

    walk("", comparison)
    for cell, adjusted in zip(cells.values(), holm([cell["mcnemar_p"] for cell in cells.values()])):
        cell["mcnemar_p_holm"] = adjusted
    return comparison


def evaluate_pair(methods_a: Sequence[ScoringMethod], methods_b: Sequence[ScoringMethod], benchmark: str,
                  limit: int | None, splits: Sequence[str] = world.SPLITS, data: Path | None = None,
                  images: Path | None = None, shards: tuple[Shards, Shards] | None = None,
                  access: DataAccess = DataAccess(), left_out: list[str] | None = None,
                  view: str | None = None, strict_ties: bool = False) -> tuple[dict, dict, dict]:
    """Model A's results, model B's (``accuracy.evaluate``'s shape each) and their ``comparison`` (the same
    nesting: ``{METHOD: {SPLIT: {KIND: paired}}}`` for the world) on the same items, each model's outcomes one
    task of its own ``shards``; an item unreadable is said once in ``left_out``; the pictures read in ``view`` where
    asked, else as the benchmark's authors read them; a tie a miss everywhere with ``strict_ties``."""
    b = registered(benchmark)
    shards_a, shards_b = shards or (Shards(), Shards())
    results_a, results_b, comparison = {}, {}, {}
    for split, items in benchmark_tasks(benchmark, limit, splits, data, images, access, view, strict_ties):
        found_a = item_outcomes(methods_a, items, benchmark, shards=shards_a, task=split)
        found_b = item_outcomes(methods_b, items, benchmark, shards=shards_b, task=split)
        placed(results_a, split, summary(methods_a, items, found_a, benchmark, left_out))
        placed(results_b, split, summary(methods_b, items, found_b, benchmark))
        placed(comparison, split, compared([m.name for m in methods_a], [it.kind for it in items], found_a, found_b,
                                           b.overall))
    return results_a, results_b, with_holm(comparison)
