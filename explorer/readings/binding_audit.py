"""A binding record held to its own draws: every p, adjusted p, count, unit, family, effect and seed verdict it
states recomputed from what it stores (the null's draws, each swap pair's counts, each seed's p), so that an edit of
any one of them, or of a draw, shows (``problems``).

The tests each record states are recomputed as it states them: the Monte-Carlo share of draws at or above the value,
(k + 1) / (n + 1), or k / n where the draws stopped at their ``STOP``-th one at or above (``significance``); the exact
sign-flip test over swap pairs from each pair's counts (``significance.pair_test``); for a record made before the
swap pair was the unit, the exact sign test over the units it names, whose null mean (half the units decided, in
percent of the units) holds its ``units``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from explorer.readings import STOP
from explorer.readings.significance import (
    ALPHA, UNTESTED, binding_word, effect, holm, monte_carlo_p, pair_test, untested_reason,
)

CLOSE = 0.011  # a recomputed figure recorded at 2 decimals may differ from it by rounding


def _near(a, b, tol: float = CLOSE) -> bool:
    return a is not None and b is not None and abs(float(a) - float(b)) <= tol


def _p_same(a, b) -> bool:
    """Two p-values the same at the 4 significant digits a record keeps."""
    return a is not None and b is not None and math.isclose(float(a), float(b), rel_tol=1e-3, abs_tol=1e-12)


def _draws(name: str, entry: dict) -> list[str]:
    """A Monte-Carlo entry against its stored draws."""
    null, out = entry["null"], []
    values = np.asarray(null["values"], dtype=float)
    if null["draws"] != len(values):
        out.append(f"{name}: {null['draws']} draws stated, {len(values)} stored")
    finite = values[np.isfinite(values)]
    if len(finite):
        low, high = np.percentile(finite, [100 * ALPHA / 2, 100 * (1 - ALPHA / 2)])
        for key, found in (("mean", finite.mean()), ("range", [low, high])):
            if not all(_near(a, b) for a, b in zip(np.atleast_1d(null[key]), np.atleast_1d(found))):
                out.append(f"{name}: the null's {key} {null[key]} is not its draws' ({np.round(found, 2)})")
    if not _near(entry["value"], null["observed"], 0.006):
        out.append(f"{name}: value {entry['value']} is not the observed {null['observed']}")
    why = untested_reason(null["observed"], values)
    if why is not None or null.get("p") is None:
        if why != null.get("untested"):
            out.append(f"{name}: untested {null.get('untested')!r}, but its draws say {why!r}")
        return out
    p, k = monte_carlo_p(null["observed"], values)
    if "sequential" in null["test"]:
        p = k / len(values)
        if k > STOP or (k < STOP and len(values) % 50):
            out.append(f"{name}: sequential draws stop at {STOP} at or above or at a full batch, not at {k} of "
                       f"{len(values)}")
    if null.get("at_or_above") != k:
        out.append(f"{name}: at_or_above {null.get('at_or_above')}, its draws give {k}")
    if not _p_same(null["p"], p):
        out.append(f"{name}: p {null['p']}, its draws give {p:.4g}")
    return out


def _pairs(name: str, entry: dict) -> list[str]:
    """A swap entry tested over pairs against each pair's stored counts."""
    null, out = entry["null"], []
    counts = null["per_pair"]
    unit = next(k for k in counts if k not in ("apart", "reversed"))
    again = pair_test(counts["apart"], counts["reversed"], counts[unit], entry.get("interval"), unit)
    for key in ("p", "units", "apart", "reversed"):
        if again["null"].get(key) != null.get(key) and not _p_same(again["null"].get(key), null.get(key)):
            out.append(f"{name}: {key} {null.get(key)}, its pairs give {again['null'].get(key)}")
    for key, a, b in (("value", entry["value"], again["value"]), ("null mean", null["mean"], again["null"]["mean"]),
                      ("effect", (entry.get("effect") or {}).get("value"), (again.get("effect") or {}).get("value"))):
        if (a is None) != (b is None) or (a is not None and not _near(a, b)):
            out.append(f"{name}: {key} {a}, its pairs give {b}")
    if null["units"] != len(counts["apart"]):
        out.append(f"{name}: {null['units']} units stated, {len(counts['apart'])} pairs stored")
    return out


def _units(name: str, entry: dict) -> list[str]:
    """A swap entry of a record made before the pair was the unit: its sign test over the units it names."""
    null, out = entry["null"], []
    decided = null["apart"] + null["reversed"]
    if null["units"] and not _near(null["mean"], 50 * decided / null["units"]):
        out.append(f"{name}: {null['units']} units do not give its null mean {null['mean']}")
    if decided and not _p_same(null["p"], stats.binomtest(null["apart"], decided, 0.5, alternative="greater").pvalue):
        out.append(f"{name}: p {null['p']} is not the sign test of {null['apart']} of {decided}")
    return out


def _counted(name: str, entry: dict) -> list[str]:
    """A Monte-Carlo entry stored without its draws (a control's, ``binding_controls``): p from its count."""
    null = entry["null"]
    if null.get("p") is None:
        return []
    k, n = null["at_or_above"], null["draws"]
    p = k / n if "sequential" in null["test"] else (k + 1) / (n + 1)
    return [] if _p_same(null["p"], p) else [f"{name}: p {null['p']}, {k} of {n} at or above give {p:.4g}"]


def _entry(name: str, entry: dict) -> list[str]:
    null = entry["null"]
    if "values" in null:
        return _draws(name, entry)
    if "draws" in null:
        return _counted(name, entry)
    if "per_pair" in null:
        return _pairs(name, entry)
    if "apart" in null:
        return _units(name, entry)
    return [f"{name}: its null stores nothing to recompute it from"]


def _seed_family(figures: dict[str, dict], seed: str) -> dict[str, float]:
    """The p of seed ``seed``'s family: each reading's p on that seed where it was measured there, else the run's."""
    out = {}
    for name, entry in figures.items():
        brief = entry.get("seeds", {}).get(seed)
        p = brief["p"] if brief is not None else entry["null"].get("p")
        if p is not None:
            out[name] = p
    return out


def _seeds(name: str, entry: dict, figures: dict[str, dict], run_seed: int) -> list[str]:
    """Each seed's adjusted p and verdict from its p in that seed's family, and the reading from the seeds'."""
    out, verdicts = [], set()
    for seed, brief in entry.get("seeds", {}).items():
        if int(seed) == run_seed:
            mine = {"p": entry["null"]["p"], "p_adjusted": entry["null"]["p_adjusted"]}
            if any(not _p_same(brief[k], mine[k]) for k in mine):
                out.append(f"{name}: seed {seed}'s p is not the run's own")
        ps = _seed_family(figures, seed)
        adj = holm(ps)[name] if name in ps else None
        if (adj is None) != (brief["p_adjusted"] is None) or (adj is not None and
                                                               not _p_same(adj, brief["p_adjusted"])):
            out.append(f"{name}: seed {seed}'s adjusted p {brief['p_adjusted']}, its p gives {adj}")
        read = UNTESTED if adj is None else "above chance" if adj <= ALPHA else None
        if (read or "at chance") != brief["reading"] and not (read is None and brief["reading"] == "below chance"):
            out.append(f"{name}: seed {seed} reads {brief['reading']!r}, its adjusted p {adj} gives {read}")
        verdicts.add(brief["reading"])
    if len(verdicts) > 1 and entry["reading"] != "unstable":
        out.append(f"{name}: its seeds read {sorted(verdicts)}, yet it reads {entry['reading']!r}, not unstable")
    if entry["reading"] == "unstable" and entry.get("binding"):
        out.append(f"{name}: reads unstable, yet says {entry['binding']!r}")
    if len(verdicts) == 1 and entry["reading"] == "unstable":
        out.append(f"{name}: reads unstable, yet every seed reads {verdicts.pop()!r}")
    return out


def problems(record: dict) -> list[str]:
    """Every figure of a binding record (``binding --json``, or one control of ``binding --controls``) that its own
    stored draws, pair counts and seed p do not give; empty when it holds."""
    figures, out = record["figures"], []
    for name, entry in figures.items():
        out += _entry(name, entry)
    ps = {n: e["null"]["p"] for n, e in figures.items() if e["null"].get("p") is not None}
    family = len(ps)
    if "family" in record["null"] and record["null"]["family"] != family:
        out.append(f"family {record['null']['family']} stated, {family} readings tested")
    adjusted = holm(ps, family)
    run_seed = record["null"].get("render_seed", 0)
    for name, entry in figures.items():
        null = entry["null"]
        if name not in adjusted:
            if entry["reading"] != UNTESTED or null.get("p_adjusted") is not None:
                out.append(f"{name}: untested, yet reads {entry['reading']!r}")
            continue
        if null.get("family") != family or not _p_same(null.get("p_adjusted"), adjusted[name]):
            out.append(f"{name}: adjusted p {null.get('p_adjusted')} of {null.get('family')}, Holm over {family} "
                       f"gives {adjusted[name]}")
        read = ("above chance" if adjusted[name] <= ALPHA else "below chance" if entry["value"] < null["range"][0]
                else "at chance")
        if entry["reading"] != read and not (entry["reading"] == "unstable" and "seeds" in entry):
            out.append(f"{name}: reads {entry['reading']!r}, its adjusted p gives {read!r}")
        if "effect" in entry:
            found = effect({k: v for k, v in entry.items() if k != "effect"} if "values" in null else entry)
            if not _near(found["value"], entry["effect"]["value"]) or \
                    not all(_near(a, b) for a, b in zip(found["interval"], entry["effect"]["interval"])):
                out.append(f"{name}: effect {entry['effect']}, its value and null give {found}")
            if entry.get("binding") != binding_word(read, entry["effect"]) and entry["reading"] != "unstable":
                out.append(f"{name}: says {entry.get('binding')!r} of an effect {entry['effect']}")
        out += _seeds(name, entry, figures, run_seed)
    return out

