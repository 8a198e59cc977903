"""The coverage sweep (seed 002): small world encoders at several coverages, held-out recognition vs binding fit."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from explorer import binding, world
from explorer.accuracy import evaluate_items
from explorer.loader import EncoderSpec, load_encoder
from explorer.methods import get_method
from explorer.training.world_clip import TrainConfig, train

log = logging.getLogger(__name__)

SWEEP_MODEL = "world-clip-small"


def sweep(coverages: Sequence[float], steps: int, batch_size: int, seed: int, runs: Path, n_items: int = 300) -> pd.DataFrame:
    """Train (or resume) one small encoder per coverage; measure held-out top-1 and the probes' fits."""
    rows = []
    for c in coverages:
        weights = runs / f"{SWEEP_MODEL}-c{c}-s{seed}.safetensors"
        if not weights.is_file():
            cfg = TrainConfig(model=SWEEP_MODEL, coverage=c, seed=seed, steps=steps, batch_size=batch_size,
                              warmup=max(1, steps // 10), checkpoint_every=50)
            train(cfg, runs / f"sweep-c{c}-s{seed}", weights)
        encoder = load_encoder(EncoderSpec(SWEEP_MODEL, checkpoint=weights))
        items = world.single_items("heldout", n_items, coverage=c)
        found = evaluate_items([get_method("global", encoder)], items, "world-single", progress=lambda it: it)
        top1 = found["global"]["single"]["top1"]
        table = binding.world_tables(encoder)["image"]
        probes = binding.composition_probes(table)
        rows.append({"coverage": c, "heldout_top1": top1, "product_fit": probes["product"],
                     "additive_fit": probes["additive"], "product_swaps": probes["swap.product"],
                     "additive_swaps": probes["swap.additive"], "swap_cosine": probes["swap.cosine"],
                     "r2_objects": binding.additive_r2(table)["objects"]})
        log.info("coverage %.2f: %s", c, rows[-1])
    return pd.DataFrame(rows)


def write(frame: pd.DataFrame, out: Path, command: str) -> dict:
    """The data (CSV, JSON with the correlation) and the figure (HTML) under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    corr = float(np.corrcoef(frame["heldout_top1"], frame["product_fit"])[0, 1]) if len(frame) > 2 else float("nan")
    frame.to_csv(out / "binding-sweep.csv", index=False)
    summary = {"command": command, "correlation_heldout_top1_vs_product_fit": round(corr, 3),
               "rows": frame.to_dict(orient="records")}
    (out / "binding-sweep.json").write_text(json.dumps(summary, indent=2) + "\n")
    fig = go.Figure()
    for column, name in (("heldout_top1", "held-out object top-1"), ("product_fit", "product probe fit"),
                         ("additive_fit", "additive probe fit"), ("product_swaps", "swaps told apart, product probe")):
        fig.add_trace(go.Scatter(x=frame["coverage"], y=frame[column], mode="lines+markers", name=name))
    fig.update_layout(title=f"Coverage sweep (correlation of top-1 and product fit: {corr:.2f})",
                      xaxis_title="coverage of the colour x shape objects in training", yaxis_title="percent")
    fig.write_html(out / "binding-sweep.html", include_plotlyjs=True)
    return summary
