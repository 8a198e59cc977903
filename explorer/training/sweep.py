"""The binding paper's coverage sweep: world encoders trained at the shipped recipe's budget over object spaces of two
sizes at several coverages; held-out recognition against the multiplicative (product probe) fit.

A cell (object space, coverage, seed) trains once, resumably, and writes a record of its figures into ``records``,
a folder that is kept (``docs/results/coverage-sweep``). A cell whose record exists is not trained again, so the
sweep grows over several sessions or machines, and ``summarize`` reads whichever cells are done.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from explorer.core.intervals import GROUP_CHANCE, against, correlation_interval, correlation_reading
from explorer.eval.accuracy import evaluate_items
from explorer.methods import get_method
from explorer.models.checkpoints import EMBEDDED_CHECKPOINT
from explorer.models.loader import EncoderSpec, load_encoder
from explorer.readings import binding
from explorer.training.config import TrainConfig
from explorer.training.world_clip import train
from explorer.world.space import ObjectSpace

log = logging.getLogger(__name__)

BUDGET_FIELDS = ("model", "steps", "batch_size", "lr", "warmup", "weight_decay", "precision")
COLUMNS = ("space", "coverage", "seed", "heldout_top1", "heldout_ci", "binding_group", "binding_ci", "sgi_group",
           "product_fit", "additive_fit", "mlp_fit", "increment", "increment_ci", "product_swaps", "additive_swaps",
           "swap_cosine", "r2_objects", "train_s")
BINDING_ITEMS = 200  # held-out attribute swaps a cell is read on (a group score's interval about +-6 points near 50)


def shipped_budget() -> dict:
    """The embedded model's training budget from scratch (steps, batch, schedule, precision, model), from its record:
    for a model made by warm starts, that of the model its lineage starts from (a sweep cell trains from scratch)."""
    record = json.loads(EMBEDDED_CHECKPOINT.with_suffix(".json").read_text())
    config = record["lineage"][0]["config"] if "lineage" in record else record["config"]
    return {k: config[k] for k in BUDGET_FIELDS}


def cell_budget(steps: int | None = None, batch_size: int | None = None, precision: str | None = None) -> dict:
    """The shipped recipe's budget (``shipped_budget``) with what is given in its place. A CPU without native bf16
    emulates the recipe's bf16 about 13x slower than fp32 (docs/binding.md): ``precision="fp32"`` is a budget of its
    own there, whose cells go in a records folder of their own (``summarize`` refuses mixed budgets)."""
    given = {"steps": steps, "batch_size": batch_size, "precision": precision}
    return shipped_budget() | {k: v for k, v in given.items() if v is not None}


@dataclass(frozen=True)
class Cell:
    space: str
    coverage: float
    seed: int = 0

    @property
    def name(self) -> str:
        return f"{self.space}-c{self.coverage}-s{self.seed}"

    def config(self, budget: dict, threads: int = TrainConfig.threads) -> TrainConfig:
        return TrainConfig(**budget, coverage=self.coverage, seed=self.seed, object_space=self.space, threads=threads)


def binding_outcome(encoder, cell: Cell, n_items: int = BINDING_ITEMS) -> dict:
    """The cell's binding itself: the group score of held-out attribute swaps in its space (each image holds an
    object training never showed), by the global cosine and by SGI, with the global one's 95% interval."""
    items = ObjectSpace.parse(cell.space).heldout_swaps(n_items, cell.coverage)
    scores = evaluate_items([get_method("global", encoder), get_method("sgi", encoder)], items, "world")
    attribute = {name: found["attribute"] for name, found in scores.items()}
    return {"binding_group": attribute["global"]["group"], "binding_ci": attribute["global"]["ci"]["group"],
            "sgi_group": attribute["sgi"]["group"], "binding_items": n_items}


def measure(encoder, cell: Cell, n_items: int, binding_items: int = BINDING_ITEMS) -> dict:
    """Held-out recognition in the cell's space, its binding outcome and the binding probes' fits on the 8 x 3
    two-object scenes."""
    items = ObjectSpace.parse(cell.space).heldout_items(n_items, cell.coverage)
    top1 = evaluate_items([get_method("global", encoder)], items, "world-single")["global"]["single"]
    table = binding.world_tables(encoder)["image"]
    probes = binding.composition_probes(table, joint=True)  # the increment from the same pass as the others
    return {"heldout_top1": top1["top1"], "heldout_ci": top1["ci"]["top1"], "n_items": n_items,
            **{f"{p}_fit": probes[p] for p in binding.PROBES},
            **{f"{p}_width": probes[f"{p}.width"] for p in binding.PROBES},
            "product_swaps": probes["swap.product"], "additive_swaps": probes["swap.additive"],
            "swap_cosine": probes["swap.cosine"], "r2_objects": binding.additive_r2(table)["objects"],
            **{k: probes[k] for k in ("joint_fit", "increment", "increment_ci", "joint_swaps")},
            **binding_outcome(encoder, cell, binding_items)}


def run_cell(cell: Cell, budget: dict, runs: Path, records: Path, device: str = "cpu", n_items: int = 500,
             workers: int = 0, threads: int = TrainConfig.threads, binding_items: int = BINDING_ITEMS) -> dict:
    """The cell's record: read if written, else trained (or resumed) in ``runs``, measured and written."""
    path = records / f"{cell.name}.json"
    if path.is_file():
        return json.loads(path.read_text())
    weights = runs / f"{cell.name}.safetensors"
    if not weights.is_file():
        train(cell.config(budget, threads), runs / cell.name, weights, device, workers)
    training = json.loads(weights.with_suffix(".json").read_text())
    encoder = load_encoder(EncoderSpec(budget["model"], checkpoint=weights, device=device))
    record = {**asdict(cell), "config": training["config"], "train_s": training["wall_s"],
              "device": training["device"], "final_loss": training["final_loss"],
              **measure(encoder, cell, n_items, binding_items)}
    records.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2) + "\n")
    log.info("%s: held-out top-1 %.1f, product fit %.1f", cell.name, record["heldout_top1"], record["product_fit"])
    return record


def correlation(rows: list[dict], fit: str = "product_fit", outcome: str = "heldout_top1") -> dict:
    """Pearson r of an outcome (held-out top-1, or the binding outcome ``binding_group``) and a probe's fit (the
    product probe's: the binding paper's claim) over the cells that have both: its bootstrap interval (cells
    resampled), and for few cells the exact permutation p (every ordering of the cells, two-sided) and Fisher's
    interval; it reads "positive" or "negative" only when Fisher's interval clears zero and p is at most 0.05."""
    from scipy import stats

    rows = [r for r in rows if r.get(outcome) is not None and r.get(fit) is not None]
    none = {"r": None, "ci": None, "cells": len(rows), "reading": None}
    if len(rows) < 3:
        return none
    x, y = (np.array([r[k] for r in rows], dtype=float) for k in (fit, outcome))
    if x.std() == 0 or y.std() == 0:  # a constant side has no correlation, nor an interval of one
        return none
    fisher = [round(float(v), 3) for v in stats.pearsonr(x, y).confidence_interval(0.95)]
    exact = stats.permutation_test((x,), lambda a: stats.pearsonr(a, y).statistic, permutation_type="pairings",
                                   n_resamples=np.inf if len(x) <= 8 else 9999, random_state=0)
    p = float(f"{exact.pvalue:.4g}")
    reading = correlation_reading(fisher) if p <= 0.05 else "not supported"
    return {"r": round(float(np.corrcoef(x, y)[0, 1]), 3), "ci": correlation_interval(x, y), "fisher_ci": fisher,
            "p_permutation": p, "cells": len(rows), "reading": reading}


def readings(record: dict) -> dict:
    """A cell's binding outcome against the group score's chance, and the product's increment over the additive
    probe against none, each by its interval (None for a cell recorded before the reading existed)."""
    return {"binding_reading": against(record.get("binding_ci"), GROUP_CHANCE),
            "increment_reading": against(record.get("increment_ci"), 0.0)}


def summarize(records: Path) -> dict:
    """Every recorded cell, sorted, with the correlation over all cells and within each space, and over all cells
    for each probe (``by_probe``: does recognition follow the product probe's fit rather than the others'?), and the
    same for the binding outcome (``binding_by_probe``), and the product's increment over the additive probe against
    both outcomes (``increment``); over the cells recorded with each reading (a reading a cell recorded before it
    existed lacks is None in its row)."""
    rows = sorted((json.loads(p.read_text()) for p in records.glob("*.json")),
                  key=lambda r: (ObjectSpace.parse(r["space"]).size, r["coverage"], r["seed"]))
    budgets = {json.dumps({k: r["config"][k] for k in BUDGET_FIELDS}, sort_keys=True) for r in rows}
    if len(budgets) > 1:
        raise ValueError(f"the records in {records} were trained with different budgets: {sorted(budgets)}")
    spaces = sorted({r["space"] for r in rows})
    return {"rows": [{k: r.get(k) for k in COLUMNS} | readings(r) for r in rows],
            "correlation": correlation(rows),
            "by_space": {s: correlation([r for r in rows if r["space"] == s]) for s in spaces},
            "by_probe": {p: correlation(rows, f"{p}_fit") for p in binding.PROBES},
            "binding_by_probe": {p: correlation(rows, f"{p}_fit", "binding_group") for p in binding.PROBES},
            "increment": {o: correlation(rows, "increment", o) for o in ("heldout_top1", "binding_group")}}


def write(summary: dict, out: Path, command: str) -> dict:
    """The sweep's table (CSV), data with the correlations and the command (JSON) and figure (HTML) under ``out``."""
    import pandas as pd

    from explorer.core.csv_cells import write_csv
    from explorer.figures.viz import coverage_sweep_figure

    out.mkdir(parents=True, exist_ok=True)
    summary = {"command": command, **summary}
    write_csv(pd.DataFrame(summary["rows"]), out / "coverage-sweep.csv")
    (out / "coverage-sweep.json").write_text(json.dumps(summary, indent=2) + "\n")
    coverage_sweep_figure(summary).write_html(out / "coverage-sweep.html", include_plotlyjs=True)
    return summary
