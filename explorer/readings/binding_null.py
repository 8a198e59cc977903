"""A null for every binding reading: what an encoder without binding reads of the same scenes.

Without binding, a scene and its swap ({(c1, s1), (c2, s2)} against {(c1, s2), (c2, s1)}: the same colours and
shapes, bound the other way, every object covering the same pixels, ``equal_area``) are alike to the encoder: any
difference between their embeddings is not about which colour sits on which shape. So the null exchanges the two
scenes of each of the grid's swap pairs at random (``flip_orders``): what a bag of concepts sees of the scene table is
unchanged, any binding is scrambled. Each table reading is measured on ``draws`` flipped tables by the same code and
its p is the Monte-Carlo share at or above it (``significance.against_draws``); the probes' retrievals are fitted on
the flipped tables at the width the model's run chose, from the model's own starting weights, in batches that stop
once ``STOP`` of them read at or above the model (Besag and Clifford's sequential p, exact too). Swaps told apart are
judged by an exact sign-flip test over the swap pairs (``significance.pair_test``), each pair's distinct renders (the
pictures) or caption orders (the captions, ``binding_swaps.distinct_units``) averaged inside it: they are alike, not
independent. ``controls`` are encoders that lack binding by construction (they must
read at chance everywhere) and ones that have it (they must read above chance); tests run them through this code.
"""

from __future__ import annotations

import numpy as np

from explorer.core import cancel
from explorer.core.intervals import percent_intervals
from explorer.readings import BATCH, DRAWS, RENDERS, STOP
from explorer.readings.binding import PROBES, SceneTable, probe_outcomes, readings_many, world_tables
from explorer.readings.binding_swaps import SwapTable, distinct_units, swap_cosine, swap_renders, table_swaps
from explorer.readings.significance import DIGITS, TOL, adjusted, against_draws, pair_test

METHOD = ("the scene table with the two scenes of each swap pair exchanged at random (what an encoder without binding "
          "cannot tell apart); each table reading's p the Monte-Carlo share of flipped tables at or above it, "
          "(k + 1) / (n + 1), the probes' retrievals drawn until 10 are at or above (k / n); swaps told apart: exact "
          "sign-flip test over the swap pairs, each pair's renders (pictures) or distinct caption orders (captions) "
          "averaged inside it; "
          "Holm's correction over every tested reading of the model, image and caption together")


def flip_orders(table: SceneTable, draws: int = DRAWS, seed: int = 0) -> np.ndarray:
    """(draws, scenes): each flipped table's rows, the two scenes of every swap pair exchanged with probability 1/2."""
    rows = table_swaps(table.pairs, table.embeddings, table.n_colors, table.n_shapes).rows
    rng = np.random.default_rng(seed)
    out = np.tile(np.arange(len(table.pairs)), (draws, 1))
    for order in out:
        flip = rows[rng.random(len(rows)) < 0.5]
        order[flip[:, 0]], order[flip[:, 1]] = flip[:, 1], flip[:, 0]
    return out


def _tables(table: SceneTable, orders: np.ndarray) -> list[SceneTable]:
    return [SceneTable(table.pairs, table.embeddings[order], table.n_colors, table.n_shapes) for order in orders]


def flipped(table: SceneTable, draws: int = DRAWS, seed: int = 0) -> list[SceneTable]:
    """``draws`` copies of the table, each with the two scenes of every swap pair exchanged with probability 1/2."""
    return _tables(table, flip_orders(table, draws, seed))


def table_readings(table: SceneTable, orders: np.ndarray) -> tuple[dict[str, float], list[dict[str, float]]]:
    """The table's readings (``binding.readings``) and each flipped table's, in batches."""
    model, null = readings_many([table])[0], []
    for start in range(0, len(orders), 2 * BATCH):
        cancel.check()
        null += readings_many(_tables(table, orders[start:start + 2 * BATCH]))
    return model, null


def _same_start(make):
    """``make(copies)`` with every copy starting from the weights a single copy draws (the model's own fit), so that
    each flipped table is fitted exactly as the model's table was."""
    def build(copies: int):
        first, many = make(1), make(copies)  # fit_copies seeded torch's generator just before
        many.load_state_dict({k: v.expand_as(many.state_dict()[k]).clone() for k, v in first.state_dict().items()})
        return many
    return build


def probe_null(table: SceneTable, name: str, width: int, value: float, orders: np.ndarray, seed: int = 0
               ) -> tuple[list[float], bool]:
    """A probe's retrieval on flipped tables, ``BATCH`` at a time, until ``STOP`` read at or above ``value``: the
    values drawn, and whether it stopped early."""
    values: list[float] = []
    make = PROBES[name]
    probe = {name: lambda nc, ns, w, d, copies=1: _same_start(lambda k: make(nc, ns, w, d, k))(copies)}
    for start in range(0, len(orders), BATCH):
        cancel.check()
        found, _ = probe_outcomes(_tables(table, orders[start:start + BATCH]), None, {name: width}, seed, probes=probe)
        for f in found:
            values.append(f[name])
            if (np.round(values, DIGITS) >= round(value, DIGITS) - TOL).sum() >= STOP:
                return values, True
    return values, False


def swap_entry(apart: np.ndarray, wrong: np.ndarray, units: np.ndarray, unit: str) -> dict:
    """Swaps told apart, the pair the unit (``significance.pair_test``): ``apart``, ``wrong`` and ``units``
    (pairs, renders) booleans, the renders counted those that are distinct draws; the interval resamples pairs."""
    a, r, n = ((x & units).sum(1) for x in (apart, wrong, units))
    return pair_test(a, r, n, percent_intervals(a / n)[0], unit)


def measured(table: SceneTable, swaps: SwapTable | None = None, draws: int = DRAWS, seed: int = 0,
             widths: tuple[int, ...] = (16, 64, 256), unit: str = "renders", only: set[str] | None = None
             ) -> tuple[dict[str, dict], dict]:
    """Every reading of a table with its null and its p (not yet adjusted: ``significance.adjusted``), and the
    swaps' description (pairs, units, how alike the two sides embed). ``unit``: what a distinct render of a swap
    pair is ("renders", or "caption pairs"). ``only``: the readings wanted (default all; the table readings are
    always all read, they cost little), so that only the probes they need are fitted.

    Retrieval and swaps told apart carry their 95% interval (test scenes, or swap pairs, resampled).
    """
    swaps = swaps or table_swaps(table.pairs, table.embeddings, table.n_colors, table.n_shapes)
    orders = flip_orders(table, draws, seed)
    cancel.check()
    model, null = table_readings(table, orders)
    out = {name: against_draws(value, [n[name] for n in null]) for name, value in model.items()}
    wanted = [p for p in PROBES if only is None or {f"{p}.heldout_objects", f"swap.{p}.heldout_objects"} & only]
    (probes,), outcomes = probe_outcomes([table], [swaps], widths, seed, probes={p: PROBES[p] for p in wanted})
    widths_chosen = {p: probes[f"{p}.width"] for p in wanted}
    units = distinct_units(swaps.embeddings)
    for name in wanted:
        if only is None or f"{name}.heldout_objects" in only:
            values, stopped = probe_null(table, name, widths_chosen[name], probes[name], orders, seed)
            out[f"{name}.heldout_objects"] = against_draws(probes[name], values,
                                                           percent_intervals(outcomes[name][0])[0], stopped)
        out[f"swap.{name}.heldout_objects"] = swap_entry(outcomes[f"apart.{name}"][0],
                                                         outcomes[f"reversed.{name}"][0], units, unit)
    info = {"draws": draws, "pairs": len(swaps.pairs), "renders": int(swaps.embeddings.shape[1]),
            "units": len(swaps.pairs), "unit": "pairs", "distinct": {unit: int(units.sum())},
            "swap_cosine": round(swap_cosine(swaps.embeddings), 4),
            "widths": widths_chosen}
    return out, info


UNITS = {"image": "renders", "text": "caption pairs"}  # what counts once in a swap's sign test, per kind


def measured_kinds(encoder, n_colors: int = 8, n_shapes: int = 3, draws: int = DRAWS, renders: int = RENDERS,
                   widths: tuple[int, ...] = (16, 64, 256), progress=lambda it: it, render_seed: int = 0,
                   only: set[str] | None = None) -> tuple[dict[str, dict], dict]:
    """``measured`` on a model's image and caption tables, not yet adjusted: entries named ``READING.KIND``, and each
    kind's description; ``only``: the names wanted (default all)."""
    tables = world_tables(encoder, n_colors, n_shapes, seed=2 * render_seed)
    swaps = (swap_renders(encoder, n_colors, n_shapes, renders, seed=2 * render_seed + 1) if renders
             else {kind: None for kind in tables})
    out, info = {}, {}
    for kind, table in progress(list(tables.items())):
        mine = None if only is None else {n.rsplit(".", 1)[0] for n in only if n.endswith(f".{kind}")}
        if mine == set():
            continue
        found, info[kind] = measured(table, swaps[kind], draws, widths=widths, unit=UNITS[kind], only=mine)
        out |= {f"{name}.{kind}": entry for name, entry in found.items()
                if only is None or f"{name}.{kind}" in only}
    return out, info


def figures(encoder, n_colors: int = 8, n_shapes: int = 3, draws: int = DRAWS, renders: int = RENDERS,
            widths: tuple[int, ...] = (16, 64, 256), progress=lambda it: it, render_seed: int = 0
            ) -> tuple[dict[str, dict], dict]:
    """All the readings of a model's image and caption embeddings, each beside its null with its p and its
    Holm-adjusted p over every tested one (``significance.adjusted``): named ``READING.KIND`` (percent), and per
    kind how the null was drawn and the swaps' description. ``renders``: how often each swap pair is drawn anew for
    the swaps told apart (0: the scene table's own scenes, once each). ``render_seed``: which drawing of the scenes
    (places and caption orders)."""
    out, info = measured_kinds(encoder, n_colors, n_shapes, draws, renders, widths, progress, render_seed)
    return adjusted(out), info
