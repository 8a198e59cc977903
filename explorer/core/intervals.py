"""Bootstrap intervals for percentages over items: resample the items, read the spread of the score."""

from __future__ import annotations

import numpy as np

LEVEL = 0.95
RESAMPLES = 1000
SEED = 0
METHOD = {"kind": "percentile bootstrap over items", "level": 100 * LEVEL, "resamples": RESAMPLES, "seed": SEED}


def percent_intervals(hits: np.ndarray, resamples: int = RESAMPLES, seed: int = SEED,
                      level: float = LEVEL) -> list[list[float]]:
    """For each column of ``hits`` (items, scores), or (items,) for one score (booleans; or -1 / 0 / 1, the paired
    difference of two), the ``level`` interval of its percentage (points of difference): one [low, high] a column.

    The same item resamples serve every column, so the intervals of one cell's text, image and group scores come
    from one bootstrap; ``seed`` fixes them, so a rerun (or a sharded run) gives the same numbers.
    """
    hits = np.asarray(hits, dtype=float)
    hits = hits[:, None] if hits.ndim == 1 else hits
    if len(hits) == 0:
        return [[0.0, 0.0] for _ in range(hits.shape[1])]
    rows = np.random.default_rng(seed).integers(0, len(hits), size=(resamples, len(hits)))
    means = 100 * hits[rows].mean(axis=1)  # (resamples, scores)
    tail = 100 * (1 - level) / 2
    lo, hi = np.percentile(means, [tail, 100 - tail], axis=0)
    return [[round(float(a), 2), round(float(b), 2)] for a, b in zip(lo, hi)]


def correlation_interval(x: np.ndarray, y: np.ndarray, resamples: int = RESAMPLES, seed: int = SEED,
                         level: float = LEVEL) -> list[float]:
    """The ``level`` interval [low, high] of the Pearson correlation of ``x`` and ``y`` (pairs,), resampling their
    pairs (cells of a sweep); resamples in which either side is constant have no correlation and are left out."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    rows = np.random.default_rng(seed).integers(0, len(x), size=(resamples, len(x)))
    xs, ys = x[rows], y[rows]
    xs, ys = xs - xs.mean(1, keepdims=True), ys - ys.mean(1, keepdims=True)
    norms = np.sqrt((xs ** 2).sum(1) * (ys ** 2).sum(1))
    r = (xs * ys).sum(1)[norms > 0] / norms[norms > 0]
    tail = 100 * (1 - level) / 2
    return [round(float(v), 3) for v in np.percentile(r, [tail, 100 - tail])]


GROUP_CHANCE = 100 / 6  # a swap item's group score (both images, both captions right) for random scores


def against(interval: list[float] | None, chance: float) -> str | None:
    """How a figure reads against a chance level by its interval: "above chance" or "below chance" when the
    interval clears it, "at chance" when it holds it; None for a figure recorded without an interval."""
    if interval is None:
        return None
    low, high = interval
    return "above chance" if low > chance else "below chance" if high < chance else "at chance"


def correlation_reading(interval: list[float] | None) -> str | None:
    """A correlation read by its interval: "positive" or "negative" when it clears zero, else "not supported"."""
    if interval is None:
        return None
    low, high = interval
    return "positive" if low > 0 else "negative" if high < 0 else "not supported"
