"""P-values of a reading against its null, and Holm's correction over a model's readings.

Two nulls, both one-sided (is the reading higher than an encoder without binding gives?):

- ``against_draws``: a figure beside its value on null tables (the scene table with the two scenes of each swap pair
  exchanged at random, ``binding_null.flipped``). p is the Monte-Carlo share of draws at or above the value, counted
  as (k + 1) / (n + 1), with n 500 or more, so that no fitted tail is needed: a correction over every reading is
  possible once n is large enough (1 / 501 is under 0.05 / 22). Draws within ``TOL`` of the value count as equal to
  it (float noise in identical tables is no difference).
- ``pair_test``: swaps told apart, the swap pair the unit (its renders, or its distinct caption orders, are alike:
  they are averaged inside the pair). Each render is told apart (both sides nearer their own prediction), told the
  wrong way round (both nearer the other's), or neither. Without binding the two sides of a pair are exchangeable,
  so each pair's mean difference (apart - reversed) is as likely negated: an exact sign-flip test over the pairs.

A reading that cannot be tested says so and enters no family: one that is not a number (or whose draws are not), one
whose draws all read the same as it (the flips cannot move it), swaps told apart with no pair leaning either way.
"""

from __future__ import annotations

import math

import numpy as np

from explorer.core.intervals import percent_intervals

ALPHA = 0.05  # a reading with Holm-adjusted p at most this is read "above chance"
SMALLEST = 1.0  # points: the smallest effect (reading minus its null's mean) read as binding (docs/binding.md)
SHOWS, NEGLIGIBLE = "shows binding", "real but negligible"  # an above-chance reading's effect, clearing SMALLEST or not
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


def _flip_distribution(steps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The exact distribution of sum(s_i * steps_i), each sign s_i +1 or -1 at 1/2 (``steps``: non-negative integers):
    (the sums, their probabilities)."""
    total = int(steps.sum())
    prob = np.zeros(2 * total + 1)
    prob[total] = 1.0
    for step in steps.astype(int):
        if step:
            prob = 0.5 * (np.roll(prob, step) + np.roll(prob, -step))  # the sums never reach the ends: no wrap
    return np.arange(-total, total + 1), prob


def pair_test(apart, reversed_, renders, interval: list[float] | None = None, unit: str = "renders") -> dict:
    """Swaps told apart, the swap pair the unit: ``apart``, ``reversed_`` and ``renders`` per pair (its distinct
    renders told apart, told the wrong way round, and in all). The value is the mean over pairs of each pair's share
    of renders told apart; without binding the two sides of a pair are exchangeable, which flips the sign of its
    difference (apart - reversed) / renders, so p is the exact sign-flip (randomisation) test over pairs of the sum of
    those differences; the null's mean and range are the value's under those flips; ``effect`` (value minus the
    null's mean, 50 x the mean difference) has its interval from pairs resampled (``pair_effect_interval``)."""
    a, r, n = (np.asarray(x, dtype=int) for x in (apart, reversed_, renders))
    scale = math.lcm(*(int(x) for x in n))
    steps = np.abs(a - r) * (scale // n)
    base = 100 * float(((a + r) / (2 * n)).mean())
    sums, prob = _flip_distribution(steps)
    values = base + 50 * sums / (scale * len(n))
    cdf = np.cumsum(prob)
    low, high = (float(values[np.searchsorted(cdf, q)]) for q in (ALPHA / 2, 1 - ALPHA / 2))
    value = 100 * float((a / n).mean())
    entry = {"value": round(value, 2)} | ({"interval": interval} if interval is not None else {})
    null = {"test": f"exact sign-flip test over swap pairs ({unit} averaged inside each pair)", "unit": "pairs",
            "units": int(len(n)), "per_pair": {"apart": a.tolist(), "reversed": r.tolist(), unit: n.tolist()},
            "apart": int((a > r).sum()), "reversed": int((a < r).sum()), "mean": round(base, 2),
            "range": [round(low, 2), round(high, 2)]}
    if not steps.any():
        return entry | {"null": null | {"p": None, "untested": "no pair told apart more often one way than the "
                                                             "other: nothing to test"}}
    observed = int(((a - r) * (scale // n)).sum())
    effect = {"value": round(value - base, 2), "interval": percent_intervals((a - r) / (2 * n))[0]}
    return entry | {"null": null | {"p": _p(float(prob[sums >= observed].sum()))}, "effect": effect}


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


def effect(entry: dict) -> dict:
    """A tested reading's effect: its value minus its null's mean, with an interval: the pairs resampled for swaps
    told apart (``pair_test``), the value's own interval less the null's mean where it has one, else the value less
    the null's 95% range (a reading of the whole table: the null's spread is its only uncertainty)."""
    if "effect" in entry:
        return entry["effect"]
    null, value = entry["null"], entry["value"]
    low, high = ((entry["interval"][0] - null["mean"], entry["interval"][1] - null["mean"]) if "interval" in entry
                 else (value - null["range"][1], value - null["range"][0]))
    return {"value": round(value - null["mean"], 2), "interval": [round(low, 2), round(high, 2)]}


def binding_word(reading: str, found: dict | None) -> str | None:
    """What an above-chance reading says of binding: "shows binding" where its effect's interval clears
    ``SMALLEST``, else "real but negligible"; None for any other reading."""
    if reading != "above chance" or found is None:
        return None
    return SHOWS if found["interval"][0] >= SMALLEST else NEGLIGIBLE


def adjusted(entries: dict[str, dict], family: int | None = None) -> dict[str, dict]:
    """Entries with ``p_adjusted`` (Holm over every tested one; ``family``: see ``holm``), their ``effect`` and their
    reading: "above chance" at adjusted p at most ``ALPHA``, "below chance" under the null's range, else "at
    chance", and ``binding`` (``binding_word``); an entry that could not be tested reads "not tested" and enters no
    family."""
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
        found = effect(e)
        out[name] = e | {"null": null, "effect": found, "reading": reading, "binding": binding_word(reading, found)}
    return out
