"""A null for every binding reading: what an encoder without binding reads of the same scenes.

Without binding, a scene and its swap ({(c1, s1), (c2, s2)} against {(c1, s2), (c2, s1)}: the same colours and
shapes, bound the other way, every object covering the same pixels, ``equal_area``) are alike to the encoder: any
difference between their embeddings is not about which colour sits on which shape. So the null exchanges the two
scenes of each of the grid's swap pairs at random (``flipped``): what a bag of concepts sees of the scene table is
unchanged, any binding is scrambled. Each table reading is measured on ``draws`` flipped tables by the same code
(the probes at the widths the model's run chose) and its p read from a normal fitted to them; swaps told apart are
judged by an exact sign test over the renders (``significance``). Holm's correction runs over all of a model's
readings, image and caption together. ``controls`` are encoders that lack binding by construction (they must read
at chance everywhere) and one that has it (it must read above chance); tests run them through this code.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.core import cancel
from explorer.core.intervals import percent_intervals
from explorer.readings import DRAWS, RENDERS
from explorer.readings.binding import (
    PROBES, SceneTable, mds_points, probe_outcomes, readings_many, world_tables,
)
from explorer.readings.binding_swaps import SwapTable, swap_cosine, swap_renders, table_swaps
from explorer.readings.significance import ALPHA, adjusted, against_draws, sign_test

METHOD = ("the scene table with the two scenes of each swap pair exchanged at random (what an encoder without binding "
          "cannot tell apart), a normal fitted to the table readings' draws, one-sided; swaps told apart: exact sign "
          "test over the renders decided; Holm's correction over all of a model's readings")


def flipped(table: SceneTable, draws: int = DRAWS, seed: int = 0) -> list[SceneTable]:
    """``draws`` copies of the table, each with the two scenes of every swap pair exchanged with probability 1/2."""
    rows = table_swaps(table.pairs, table.embeddings, table.n_colors, table.n_shapes).rows
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(draws):
        order = np.arange(len(table.pairs))
        flip = rows[rng.random(len(rows)) < 0.5]
        order[flip[:, 0]], order[flip[:, 1]] = flip[:, 1], flip[:, 0]
        out.append(SceneTable(table.pairs, table.embeddings[order], table.n_colors, table.n_shapes))
    return out


def measured(table: SceneTable, swaps: SwapTable | None = None, draws: int = DRAWS, seed: int = 0,
             widths: tuple[int, ...] = (16, 64, 256)) -> tuple[dict[str, dict], dict]:
    """Every reading of a table with its null and its p (not yet adjusted: ``significance.adjusted``), and the
    swaps' description (pairs, renders, how alike the two sides embed).

    Retrieval and swaps told apart carry their 95% interval (test scenes, or swap pairs, resampled).
    """
    swaps = swaps or table_swaps(table.pairs, table.embeddings, table.n_colors, table.n_shapes)
    nulls = flipped(table, draws, seed)
    cancel.check()
    model, *null = readings_many([table, *nulls])
    out = {name: against_draws(value, [n[name] for n in null]) for name, value in model.items()}
    (probes,), outcomes = probe_outcomes([table], [swaps], widths, seed)
    widths_chosen = {p: probes[f"{p}.width"] for p in PROBES}
    null_probes, _ = probe_outcomes(nulls, None, widths_chosen, seed)
    renders = swaps.embeddings.shape[1]
    for name in PROBES:
        out[f"{name}.heldout_objects"] = against_draws(probes[name], [n[name] for n in null_probes],
                                                       percent_intervals(outcomes[name][0])[0])
        apart, wrong = (int(round(outcomes[f"{k}.{name}"][0].sum() * renders)) for k in ("swap", "reversed"))
        out[f"swap.{name}.heldout_objects"] = sign_test(probes[f"swap.{name}"], apart, wrong,
                                                        len(swaps.pairs) * renders,
                                                        percent_intervals(outcomes[f"swap.{name}"][0])[0])
    info = {"draws": draws, "pairs": len(swaps.pairs), "renders": int(renders),
            "swap_cosine": round(swap_cosine(swaps.embeddings), 4), "widths": widths_chosen}
    return out, info


def figures(encoder, n_colors: int = 8, n_shapes: int = 3, draws: int = DRAWS, renders: int = RENDERS,
            widths: tuple[int, ...] = (16, 64, 256), progress=lambda it: it) -> tuple[dict[str, dict], dict]:
    """All the readings of a model's image and caption embeddings, each beside its null with its p and its
    Holm-adjusted p over all of them (``significance.adjusted``): named ``READING.KIND`` (percent), and per kind
    how the null was drawn and the swaps' description. ``renders``: how often each swap pair is drawn anew for the
    swaps told apart (0: the scene table's own scenes, once each)."""
    tables = world_tables(encoder, n_colors, n_shapes)
    swaps = swap_renders(encoder, n_colors, n_shapes, renders) if renders else {kind: None for kind in tables}
    out, info = {}, {}
    for kind, table in progress(list(tables.items())):
        found, info[kind] = measured(table, swaps[kind], draws, widths=widths)
        out |= {f"{name}.{kind}": entry for name, entry in found.items()}
    return adjusted(out), info


def report(encoder, command: str, n_colors: int = 8, n_shapes: int = 3, draws: int = DRAWS, renders: int = RENDERS,
           widths: tuple[int, ...] = (16, 64, 256)) -> dict:
    """What ``binding --json`` writes: the model, the command, every figure with its null, how the nulls were
    drawn, and the seconds it took."""
    import time

    from tqdm import tqdm

    start = time.perf_counter()
    found, info = figures(encoder, n_colors, n_shapes, draws, renders, widths,
                          progress=lambda it: tqdm(it, desc="binding", unit="modality"))
    return {"model": encoder.label, "command": command, "figures": found,
            "null": {"method": METHOD, "alpha": ALPHA, "tests": len(found), **info},
            "seconds": round(time.perf_counter() - start, 1)}


ROWS = {"r2.objects": "R2 scene ~ sum of its two objects", "r2.concepts": "R2 object ~ colour + shape",
        "edit.top1": "counterfactual edit, top-1", "probe.concepts": "linear probe: colours and shapes present",
        "probe.objects": "linear probe: objects present",
        "mlp.heldout_objects": "slot MLP: retrieval among test scenes",
        "product.heldout_objects": "product probe: retrieval", "additive.heldout_objects": "additive probe: retrieval",
        "swap.mlp.heldout_objects": "swaps told apart: slot MLP",
        "swap.product.heldout_objects": "swaps told apart: product probe",
        "swap.additive.heldout_objects": "swaps told apart: additive probe"}


def cell(entry: dict) -> str:
    """One figure as the docs and the page show it: value [interval] | null mean [range] | p, adjusted p: reading."""
    interval = f" [{entry['interval'][0]:.1f}, {entry['interval'][1]:.1f}]" if "interval" in entry else ""
    null = entry["null"]
    return (f"{entry['value']:.1f}{interval} | {null['mean']:.1f} [{null['range'][0]:.1f}, {null['range'][1]:.1f}] | "
            f"{null['p']:.2g}, {null['p_adjusted']:.2g}: {entry['reading']}")


def markdown(report: dict) -> str:
    """A ``report``'s figures as docs/binding.md shows them: each kind's value [interval] beside its null, its p and
    its Holm-adjusted p."""
    lines = ["| figure (percent) | image [95%] | its null: mean [range] | p, adjusted p | caption [95%] | "
             "its null: mean [range] | p, adjusted p |", "|---|---|---|---|---|---|---|"]
    f = report["figures"]
    return "\n".join(lines + [f"| {label} | {cell(f[f'{key}.image'])} | {cell(f[f'{key}.text'])} |"
                              for key, label in ROWS.items()]) + "\n"


@dataclass(frozen=True)
class ModelReading:
    """A model's image and caption tables, each one's table readings with their nulls, p and Holm-adjusted p
    (over both kinds), and the image objects' 3D MDS (observed and additively reconstructed) with their names."""

    tables: dict[str, SceneTable]
    readings: dict[str, dict[str, dict]]
    observed: np.ndarray
    reconstructed: np.ndarray
    labels: list[str]


def read_model(encoder, n_colors: int = 8, n_shapes: int = 3, tick=lambda done, total, what: None,
               draws: int = DRAWS) -> ModelReading:
    """What the binding tab shows of a model (the table readings, no probes): ``tick(done, total, what)`` before
    each stage."""
    from explorer import world

    tick(0, 3, "encoding the two-object scenes")
    tables = world_tables(encoder, n_colors, n_shapes)
    found = {}
    for i, (kind, table) in enumerate(tables.items()):
        cancel.check()
        tick(i + 1, len(tables) + 1, f"analyzing the {kind} embeddings and {draws} flipped tables")
        model, *null = readings_many([table, *flipped(table, draws)])
        found |= {f"{name}.{kind}": against_draws(value, [n[name] for n in null]) for name, value in model.items()}
    found = adjusted(found)
    by_kind = {kind: {name.rsplit(".", 1)[0]: e for name, e in found.items() if name.endswith(f".{kind}")}
               for kind in tables}
    observed, reconstructed = mds_points(tables["image"])
    labels = [f"{list(world.COLORS)[c]} {world.SHAPES[s]}" for c, s in tables["image"].objects]
    return ModelReading(tables, by_kind, observed, reconstructed, labels)
