"""P-values of a reading against its null, and Holm's correction over a model's readings.

Two nulls, both one-sided (is the reading higher than an encoder without binding gives?):

- ``against_draws``: a figure beside its value on null tables (the scene table with the two scenes of each swap pair
  exchanged at random, ``binding_null.flipped``). p is the Monte-Carlo share of draws at or above the value, counted
  as (k + 1) / (n + 1), with n 500 or more, so that no fitted tail is needed: a correction over every reading is
  possible once n is large enough (1 / 501 is under 0.05 / 22). Draws within ``TOL`` of the value count as equal to
  it (float noise in identical tables is no difference).
- ``sign_test``: swaps told apart. Each unit (a render, or a distinct caption pair: ``binding_null``) is told apart
  (both sides nearer their own prediction), told the wrong way round (both nearer the other's), or neither. Without
  binding the two sides of a unit are exchangeable, so of the units decided either way each is told apart with
  probability 1/2: an exact binomial test over independent units.

A reading that cannot be tested says so and enters no family: one that is not a number (or whose draws are not), one
whose draws all read the same as it (the flips cannot move it), a sign test with no unit decided either way.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

ALPHA = 0.05  # a reading with Holm-adjusted p at most this is read "above chance"
TOL = 1e-6  # points: a draw this close to the value counts as equal to it
DIGITS = 6  # decimals the value and the draws are recorded with, and p computed from, so it can be recomputed
UNTESTED = "not tested"


def monte_carlo_p(value: float, draws) -> tuple[float, int]:
    """(k + 1) / (n + 1), k the draws at or above ``value`` (within ``TOL``), and k."""
    v = np.asarray(draws, dtype=float)
    k = int((v >= value - TOL).sum())
    return (k + 1) / (len(v) + 1), k


def untested_reason(value: float, draws) -> str | None:
    """Why a reading cannot be tested against its draws, or None when it can."""
    v = np.asarray(draws, dtype=float)
    if not math.isfinite(value) or not len(v) or not np.isfinite(v).all():
        return "the reading or one of its null draws is not a number"
    if v.max() - v.min() <= TOL and abs(value - v.mean()) <= TOL:
        return f"every flipped table reads {value:.2f}, as the model does: the flips cannot move this reading"
    return None


def against_draws(value: float, draws, interval: list[float] | None = None, stopped: bool = False) -> dict:
    """A figure beside its null draws: their mean, 2.5 to 97.5% range, k at or above it and the Monte-Carlo p.

    ``stopped``: the draws were stopped at their ``STOP``-th one at or above the value (``sequential_draws``), so p is
    k / n (Besag and Clifford's sequential p), not (k + 1) / (n + 1).
    """
    v = np.round(np.asarray(draws, dtype=float), DIGITS)
    observed = round(float(value), DIGITS) if math.isfinite(value) else float("nan")
    entry = {"value": round(observed, 2) if math.isfinite(observed) else None} | \
        ({"interval": interval} if interval is not None else {})
    null = {"test": "Monte-Carlo: flipped tables at or above the value, (k + 1) / (n + 1)", "draws": len(v),
            "observed": observed, "values": [float(x) for x in v]}
    finite = v[np.isfinite(v)]
    if len(finite):
        low, high = np.percentile(finite, [100 * ALPHA / 2, 100 * (1 - ALPHA / 2)])
        null |= {"mean": round(float(finite.mean()), 2), "range": [round(float(low), 2), round(float(high), 2)]}
    if (why := untested_reason(observed, v)) is not None:
        return entry | {"null": null | {"p": None, "untested": why}}
    p, k = monte_carlo_p(observed, v)
    if stopped:
        null["test"] = "sequential Monte-Carlo: flipped tables drawn until k at or above the value, k / n"
        p = k / len(v)
    return entry | {"null": null | {"at_or_above": k, "p": _p(p)}}


def sign_test(value: float, apart: int, reversed_: int, units: int, interval: list[float] | None = None,
              unit: str = "renders") -> dict:
    """Swaps told apart (``value``, percent of ``units``) against sides exchanged at random: ``apart`` units told
    apart, ``reversed_`` told the wrong way round; p is the exact binomial upper tail of ``apart`` in both at 1/2."""
    decided = apart + reversed_
    entry = {"value": round(value, 2)} | ({"interval": interval} if interval is not None else {})
    null = {"test": f"exact sign test over the {unit} decided", "unit": unit, "units": units, "apart": apart,
            "reversed": reversed_, "mean": round(50 * decided / units, 2) if units else 0.0}
    if not decided:
        return entry | {"null": null | {"range": [0.0, 0.0], "p": None,
                                        "untested": f"no {unit[:-1]} told apart either way: nothing to test"}}
    p = float(stats.binomtest(apart, decided, 0.5, alternative="greater").pvalue)
    low, high = stats.binom.ppf([ALPHA / 2, 1 - ALPHA / 2], decided, 0.5)
    return entry | {"null": null | {"range": [round(100 * float(low) / units, 2), round(100 * float(high) / units, 2)],
                                    "p": _p(p)}}


def _p(p: float) -> float:
    """A p-value as recorded: 4 significant digits, so that a small one keeps its size."""
    return float(f"{min(max(p, 0.0), 1.0):.4g}")


def holm(p: dict[str, float], family: int | None = None) -> dict[str, float]:
    """Holm's step-down adjustment of named p-values (family-wise error over all of them). ``family``: the size of
    the family these p belong to when some of its members were not run (counted at p 1, last in the order), so the
    adjustment is never smaller than the full family's."""
    names = sorted(p, key=p.get)
    m, running, out = max(len(names), family or 0), 0.0, {}
    for i, name in enumerate(names):
        running = max(running, min(1.0, (m - i) * p[name]))
        out[name] = _p(running)
    return out


def adjusted(entries: dict[str, dict], family: int | None = None) -> dict[str, dict]:
    """Entries with ``p_adjusted`` (Holm over every tested one; ``family``: see ``holm``) and their reading: "above
    chance" at adjusted p at most ``ALPHA``, "below chance" under the null's range, else "at chance"; an entry that
    could not be tested reads "not tested" and enters no family."""
    tested = {name: e["null"]["p"] for name, e in entries.items() if e["null"].get("p") is not None}
    adj = holm(tested, family)
    out = {}
    for name, e in entries.items():
        if name not in adj:
            out[name] = e | {"null": e["null"] | {"p_adjusted": None}, "reading": UNTESTED}
            continue
        null = e["null"] | {"p_adjusted": adj[name], "family": max(len(adj), family or 0)}
        reading = ("above chance" if adj[name] <= ALPHA else "below chance" if e["value"] < null["range"][0]
                   else "at chance")
        out[name] = e | {"null": null, "excess": round(e["value"] - null["mean"], 2), "reading": reading}
    return out
