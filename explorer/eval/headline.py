"""A benchmark's headline cell as its paper reports it where that is not the pooled accuracy: the mean over its
subsets (What'sUp) or pieces (VALSE), each weighed alike whatever its size, with a bootstrap interval that resamples
each subset's items within it. The pooled figure stays beside it under ``pooled``."""

from __future__ import annotations

from collections import defaultdict
from typing import Sequence

import numpy as np

from explorer.core.intervals import LEVEL, RESAMPLES, SEED

POOLED = "pooled"  # the cell of every item together, kept beside a mean headline


def mean_over_kinds(kinds: Sequence[str], hits: Sequence[bool], metric: str) -> dict:
    """``{metric: the mean of each kind's percent, "n", "kinds", "ci": {metric: interval}}``: the percent of each
    kind's hits averaged over the kinds; the interval from resampling each kind's items within it (seed fixed)."""
    by_kind: dict[str, list[bool]] = defaultdict(list)
    for kind, hit in zip(kinds, hits):
        by_kind[kind].append(bool(hit))
    groups = [np.asarray(v, dtype=float) for v in by_kind.values()]
    value = 100.0 * sum(int(g.sum()) / len(g) for g in groups) / len(groups) if groups else 0.0
    rng = np.random.default_rng(SEED)
    means = np.mean([100 * g[rng.integers(0, len(g), size=(RESAMPLES, len(g)))].mean(axis=1) for g in groups],
                    axis=0) if groups else np.zeros(1)
    tail = 100 * (1 - LEVEL) / 2
    low, high = np.percentile(means, [tail, 100 - tail])
    return {metric: round(value, 2), "n": len(hits), "kinds": len(groups),
            "ci": {metric: [round(float(low), 2), round(float(high), 2)]}}


def macro_by_kind(cells: dict, kinds: Sequence[str], groups: Sequence[str | None], hits: Sequence[bool],
                  metric: str) -> dict:
    """``cells`` with each kind's cell the mean over its items' groups (``mean_over_kinds``; ARO's macro accuracy),
    its pooled cell kept as ``"KIND pooled"``; items of no group (None) count only there, and a kind with no
    grouped item keeps its pooled cell alone."""
    out = dict(cells)
    for kind in dict.fromkeys(kinds):
        picked = [(g, h) for k, g, h in zip(kinds, groups, hits) if k == kind and g is not None]
        if picked:
            out[f"{kind} {POOLED}"] = out[kind]
            out[kind] = mean_over_kinds([g for g, _ in picked], [h for _, h in picked], metric)
    return out
