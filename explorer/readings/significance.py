"""P-values of a reading against its null, and Holm's correction over a model's readings.

Two nulls, both one-sided (is the reading higher than an encoder without binding gives?):

- ``against_draws``: a figure beside its value on null tables (the scene table with the two scenes of each swap pair
  exchanged at random, ``binding_null.flipped``). A normal is fitted to the draws and p is its predictive upper tail
  (Student's t with draws - 1 degrees of freedom, the draws' spread widened by sqrt(1 + 1/draws)), so p can go below
  1 / draws and a correction over many readings stays possible with tens of draws, not thousands.
- ``sign_test``: swaps told apart. Each render of a pair is told apart (both sides nearer their own prediction),
  told the wrong way round (both nearer the other's), or neither. Without binding the two sides of a render are
  exchangeable, so of the renders decided either way each is told apart with probability 1/2: an exact binomial
  test, whatever the number of renders.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

ALPHA = 0.05  # a reading with Holm-adjusted p at most this is read "above chance"


def against_draws(value: float, draws, interval: list[float] | None = None) -> dict:
    """A figure beside its null draws: the draws' mean, 2.5 to 97.5% range and the normal fit's one-sided p.

    The value and the draws are rounded to 2 decimals first, as they are recorded, so that p can be recomputed from
    the record. Draws all alike (a reading the flips cannot move) give p 1 for a value at or under them, and the
    share of draws at or above it (plus one, over draws plus one) for one above."""
    v, value = np.round(np.asarray(draws, dtype=float), 2), round(value, 2)
    mean, sd = float(v.mean()), float(v.std(ddof=1)) if len(v) > 1 else 0.0
    if sd > 0:
        p = float(stats.t.sf((value - mean) / (sd * np.sqrt(1 + 1 / len(v))), df=len(v) - 1))
    else:
        p = 1.0 if value <= mean else (1 + int((v >= value).sum())) / (1 + len(v))
    low, high = np.percentile(v, [100 * ALPHA / 2, 100 * (1 - ALPHA / 2)])
    entry = {"value": value} | ({"interval": interval} if interval is not None else {})
    return entry | {"null": {"test": "normal fit to the flipped tables", "mean": round(mean, 2),
                             "range": [round(float(low), 2), round(float(high), 2)], "p": _p(p), "draws": len(v),
                             "values": [float(x) for x in v]}}


def sign_test(value: float, apart: int, reversed_: int, renders: int, interval: list[float] | None = None) -> dict:
    """Swaps told apart (``value``, percent of ``renders``) against sides exchanged at random: ``apart`` renders told
    apart, ``reversed_`` told the wrong way round; p is the exact binomial upper tail of ``apart`` in both at 1/2."""
    decided = apart + reversed_
    p = float(stats.binomtest(apart, decided, 0.5, alternative="greater").pvalue) if decided else 1.0
    low, high = (stats.binom.ppf([ALPHA / 2, 1 - ALPHA / 2], decided, 0.5) if decided else (0.0, 0.0))
    entry = {"value": round(value, 2)} | ({"interval": interval} if interval is not None else {})
    return entry | {"null": {"test": "exact sign test over the renders decided", "mean": round(50 * decided / renders, 2),
                             "range": [round(100 * float(low) / renders, 2), round(100 * float(high) / renders, 2)],
                             "p": _p(p), "apart": apart, "reversed": reversed_, "renders": renders}}


def _p(p: float) -> float:
    """A p-value as recorded: 4 significant digits, so that a small one keeps its size."""
    return float(f"{min(max(p, 0.0), 1.0):.4g}")


def holm(p: dict[str, float]) -> dict[str, float]:
    """Holm's step-down adjustment of named p-values (family-wise error over all of them)."""
    names = sorted(p, key=p.get)
    m, running, out = len(names), 0.0, {}
    for i, name in enumerate(names):
        running = max(running, min(1.0, (m - i) * p[name]))
        out[name] = _p(running)
    return out


def adjusted(entries: dict[str, dict]) -> dict[str, dict]:
    """Entries with ``p_adjusted`` (Holm over all of them) and their reading: "above chance" at adjusted p at most
    ``ALPHA``, "below chance" under the null's range, else "at chance"."""
    adj = holm({name: e["null"]["p"] for name, e in entries.items()})
    out = {}
    for name, e in entries.items():
        null = e["null"] | {"p_adjusted": adj[name]}
        reading = ("above chance" if adj[name] <= ALPHA else "below chance" if e["value"] < null["range"][0]
                   else "at chance")
        out[name] = e | {"null": null, "excess": round(e["value"] - null["mean"], 2), "reading": reading}
    return out
