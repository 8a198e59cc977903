"""What ``binding --json`` writes and docs/binding.md shows: a model's binding readings, every verdict checked on
other drawings of the scenes, and what the binding tab reads of a model.

Every tested reading is measured again on the other render seeds of ``CHECK_SEEDS`` (new places and caption orders;
the same code and null), whatever its adjusted p (a reading that cannot be tested has no verdict to check); each
seed's readings are adjusted together there (a reading not measured on that seed at the run's own p). Where the
seeds' verdicts differ, the reading is "unstable", with each seed's value, adjusted p and verdict beside it
(``seeds``), not a verdict.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from explorer.core import cancel
from explorer.readings import DRAWS, RENDERS
from explorer.readings.binding import SceneTable, mds_points, world_tables
from explorer.readings.binding_null import METHOD, figures, flip_orders, measured_kinds, table_readings
from explorer.readings.binding_swaps import grid_swaps
from explorer.readings.significance import ALPHA, adjusted, against_draws

CHECK_SEEDS = (0, 1, 2)  # the render seeds every verdict is checked on (the run's own among them)
UNSTABLE = "unstable"
ROWS = {"r2.objects": "R2 scene ~ sum of its two objects", "r2.concepts": "R2 object ~ colour + shape",
        "edit.top1": "counterfactual edit, top-1", "probe.concepts": "linear probe: colours and shapes present",
        "probe.objects": "linear probe: objects present",
        "mlp.heldout_objects": "slot MLP: retrieval among test scenes",
        "product.heldout_objects": "product probe: retrieval", "additive.heldout_objects": "additive probe: retrieval",
        "swap.mlp.heldout_objects": "swaps told apart: slot MLP",
        "swap.product.heldout_objects": "swaps told apart: product probe",
        "swap.additive.heldout_objects": "swaps told apart: additive probe"}
FAMILY = 2 * len(ROWS)  # every reading of a model, image and caption: the family Holm's correction runs over
TABLE = ("r2.objects", "r2.concepts", "edit.top1", "probe.concepts", "probe.objects")  # the tab's: no probe fitted
RECORD = Path(__file__).resolve().parents[2] / "docs" / "results" / "binding-embedded.json"  # the shipped model's


def checked_names(found: dict[str, dict]) -> list[str]:
    """The readings whose verdict is checked on the other render seeds: every tested one."""
    return sorted(name for name, e in found.items() if e["null"].get("p_adjusted") is not None)


def stable(found: dict[str, dict], seed: int, others: dict[int, dict[str, dict]]) -> dict[str, dict]:
    """``found`` (render seed ``seed``, adjusted) with each reading measured again in ``others`` (seed: unadjusted
    entries) adjusted with that seed's other readings (``found``'s where a reading was not measured there), its seeds
    beside it, and "unstable" where their verdicts differ."""
    out = dict(found)
    for other, entries in others.items():
        again = adjusted({name: entries.get(name, found[name]) for name in found})
        for name in entries:
            seen = out[name].get("seeds") or {str(seed): _brief(found[name])}
            out[name] = out[name] | {"seeds": seen | {str(other): _brief(again[name])}}
    for name, entry in out.items():
        verdicts = {s["reading"] for s in entry.get("seeds", {}).values()}
        if len(verdicts) > 1:
            out[name] = entry | {"reading": UNSTABLE, "binding": None}  # no verdict, so nothing said of binding
    return out


def _brief(entry: dict) -> dict:
    return {"value": entry["value"], "p": entry["null"]["p"], "p_adjusted": entry["null"]["p_adjusted"],
            "reading": entry["reading"], "binding": entry.get("binding")}


def report(encoder, command: str, n_colors: int = 8, n_shapes: int = 3, draws: int = DRAWS, renders: int = RENDERS,
           widths: tuple[int, ...] = (16, 64, 256), render_seed: int = 0, check: bool = True) -> dict:
    """What ``binding --json`` writes: the model, the command, every figure with its null, how the nulls were
    drawn, every verdict checked on the other render seeds (``check``), and the seconds it took."""
    from tqdm import tqdm

    start = time.perf_counter()
    found, info = figures(encoder, n_colors, n_shapes, draws, renders, widths,
                          progress=lambda it: tqdm(it, desc="binding", unit="modality"), render_seed=render_seed)
    checked = checked_names(found) if check else []
    others = {s: measured_kinds(encoder, n_colors, n_shapes, draws, renders, widths, render_seed=s,
                                only=set(checked))[0] for s in CHECK_SEEDS if s != render_seed and checked}
    family = sum(e["null"].get("p_adjusted") is not None for e in found.values())
    return {"model": encoder.label, "command": command, "figures": stable(found, render_seed, others),
            "null": {"method": METHOD, "alpha": ALPHA, "tests": len(found), "family": family,
                     "render_seed": render_seed,
                     "checked": {"rule": "every tested reading", "seeds": sorted(others), "readings": checked},
                     **info},
            "seconds": round(time.perf_counter() - start, 1)}


SAME = ("pairs", "renders", "draws")  # what a kind's description must share across the seeds merged


def checked_from(record: dict, others: list[dict], command: str) -> dict:
    """A ``binding --no-check`` record with every verdict checked on the other render seeds' records (each the same
    command at another ``--render-seed``, also ``--no-check``), as ``report`` checks them in one run: so the seeds
    can run side by side. Raises ValueError when a record is of another model, grid or null, or repeats a seed."""
    seed = record["null"]["render_seed"]
    by_seed = {o["null"]["render_seed"]: o for o in others}
    if seed in by_seed or len(by_seed) != len(others) or record["null"]["checked"]["seeds"]:
        raise ValueError("each record must be a --no-check run of its own render seed")
    for other in others:
        same = other["model"] == record["model"] and other["figures"].keys() == record["figures"].keys() and all(
            {k: other["null"][kind][k] for k in SAME} == {k: record["null"][kind][k] for k in SAME}
            for kind in ("image", "text"))
        if not same:
            raise ValueError(f"render seed {other['null']['render_seed']}'s record is of another model, grid or null")
    found = record["figures"]
    checked = checked_names(found)
    seeds = {s: {name: o["figures"][name] for name in checked} for s, o in sorted(by_seed.items())}
    null = record["null"] | {"checked": {"rule": "every tested reading", "seeds": sorted(seeds), "readings": checked,
                                         "commands": [record["command"], *(o["command"] for _, o in
                                                                           sorted(by_seed.items()))]}}
    return record | {"command": command, "figures": stable(found, seed, seeds), "null": null,
                     "seconds": round(record["seconds"] + sum(o["seconds"] for o in others), 1)}


def cell(entry: dict) -> str:
    """One figure as the docs show it: value [interval] (of its pairs, for swaps told apart) | null mean [range] |
    effect [interval] | p, adjusted p: reading (what it says of binding where it is above chance, and each render
    seed's figures where it is unstable)."""
    interval = f" [{entry['interval'][0]:.1f}, {entry['interval'][1]:.1f}]" if "interval" in entry else ""
    null = entry["null"]
    ps = "no p" if null.get("p") is None else f"{null['p']:.2g}, {null['p_adjusted']:.2g}"
    found = entry.get("effect")
    effect = "" if found is None else f"{found['value']:+.2f} [{found['interval'][0]:.2f}, {found['interval'][1]:.2f}]"
    spread = f" ({entry['binding']})" if entry.get("binding") else ""
    if entry["reading"] == UNSTABLE:
        spread = " (" + "; ".join(f"seed {s}: {b['value']:.1f}, {b['p_adjusted']:.2g}, {b['reading']}"
                                  for s, b in entry["seeds"].items()) + ")"
    units = f" of {null['units']} {null['unit']}" if "units" in null else ""
    return (f"{entry['value']:.1f}{interval}{units} | {null['mean']:.1f} [{null['range'][0]:.1f}, "
            f"{null['range'][1]:.1f}] | {effect or 'none'} | {ps}: {entry['reading']}{spread}")


def markdown(report: dict) -> str:
    """A ``report``'s figures as docs/binding.md shows them: each kind's value [interval] beside its null, its effect,
    its p and its Holm-adjusted p."""
    lines = ["| figure (percent) | image [95%] | its null: mean [range] | effect [95%] | p, adjusted p | "
             "caption [95%] | its null: mean [range] | effect [95%] | p, adjusted p |",
             "|---|---|---|---|---|---|---|---|---|"]
    f = report["figures"]
    return "\n".join(lines + [f"| {label} | {cell(f[f'{key}.image'])} | {cell(f[f'{key}.text'])} |"
                              for key, label in ROWS.items()]) + "\n"


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: gradio's State hashes what it holds
class ModelReading:
    """A model's image and caption tables, each one's readings with their nulls, p and Holm-adjusted p, and the
    image objects' 3D MDS (observed and additively reconstructed) with their names. ``record``: the record the
    readings are, every reading of ``binding`` with its verdict checked on other render seeds; None where the tab
    ran the table readings itself (adjusted as members of the full family, ``FAMILY``, and unchecked)."""

    tables: dict[str, SceneTable]
    readings: dict[str, dict[str, dict]]
    observed: np.ndarray
    reconstructed: np.ndarray
    labels: list[str]
    record: str | None = None


def recorded(label: str, n_colors: int = 8, n_shapes: int = 3, path: Path = RECORD) -> dict | None:
    """The shipped ``binding --json`` record of the model named ``label`` on this grid, or None where there is none."""
    if not path.is_file():
        return None
    record = json.loads(path.read_text())
    grid = record["null"]["image"]["pairs"] == len(grid_swaps(n_colors, n_shapes)) and (n_colors, n_shapes) == (8, 3)
    return record if record["model"] == label and grid else None  # the record's command takes the default grid


def _by_kind(found: dict[str, dict], kinds) -> dict[str, dict[str, dict]]:
    return {kind: {name.rsplit(".", 1)[0]: e for name, e in found.items() if name.endswith(f".{kind}")}
            for kind in kinds}


def read_model(encoder, n_colors: int = 8, n_shapes: int = 3, tick=lambda done, total, what: None,
               draws: int = DRAWS, path: Path = RECORD) -> ModelReading:
    """What the binding tab shows of a model: for the shipped model, every reading of its record as it stands there
    (the same family, adjusted p and verdict, checked on other render seeds); for another, the table readings, no
    probes, adjusted as members of the family of every reading ``binding`` tests (``FAMILY``), the probe readings it
    does not run counted at p 1, so that a verdict here is never bolder than the command's, and not checked on other
    render seeds; ``tick(done, total, what)`` before each stage."""
    from explorer import world

    tick(0, 3, "encoding the two-object scenes")
    tables = world_tables(encoder, n_colors, n_shapes)
    record = recorded(encoder.label, n_colors, n_shapes, path)
    if record is not None:
        by_kind = _by_kind(record["figures"], tables)
    else:
        found = {}
        for i, (kind, table) in enumerate(tables.items()):
            cancel.check()
            tick(i + 1, len(tables) + 1, f"analyzing the {kind} embeddings and {draws} flipped tables")
            model, null = table_readings(table, flip_orders(table, draws))
            found |= {f"{name}.{kind}": against_draws(value, [n[name] for n in null])
                      for name, value in model.items()}
        by_kind = _by_kind(adjusted(found, family=FAMILY), tables)
    observed, reconstructed = mds_points(tables["image"])
    labels = [f"{list(world.COLORS)[c]} {world.SHAPES[s]}" for c, s in tables["image"].objects]
    return ModelReading(tables, by_kind, observed, reconstructed, labels,
                        None if record is None else path.name)
