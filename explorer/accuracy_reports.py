"""Public benchmarks scored by any methods, and their reports: JSON, a long-format CSV and a bar chart."""

from __future__ import annotations

import json
import logging
from functools import partial
from pathlib import Path
from typing import Sequence

import pandas as pd

from explorer.datasets import PairItem, SingleItem, load_benchmark
from explorer.evaluate import grouped, hit_rate, swap_record, swap_scores
from explorer.methods import ScoringMethod
from explorer.shards import Progress, Shards

log = logging.getLogger(__name__)


def _single(method: ScoringMethod, item: SingleItem, image) -> dict:
    """``{"hit"}``: s(image, caption) > s(image, negative_caption); ties fail."""
    true, false = (s.value for s in method.score(image, [item.caption, item.negative_caption]))
    return {"hit": bool(true > false)}


def score_items(methods: Sequence[ScoringMethod], part: Sequence[PairItem | SingleItem]) -> list[dict]:
    """``{METHOD: outcome}`` for each item of a chunk; its images are read once and shared by all methods."""
    loaded = [[ref.load() for ref in (it.images if isinstance(it, PairItem) else (it.image,))] for it in part]
    found: list[dict] = [{} for _ in part]
    for method in methods:
        method.prepare([im for ims in loaded for im in ims])
        for out, it, ims in zip(found, part, loaded):
            pair = isinstance(it, PairItem)
            out[method.name] = swap_record(method, ims, it.captions) if pair else _single(method, it, ims[0])
    return found


def evaluate_benchmark(
    methods: Sequence[ScoringMethod],
    benchmark: str,
    data: Path,
    limit: int | None = None,
    progress: Progress | None = None,
    images: Path | None = None,
    chunk: int = 32,
    shards: Shards | None = None,
) -> dict:
    """``{METHOD: {CATEGORY: scores, "all": scores}}``: text / image / group for pairs, accuracy for single images.

    The benchmark is one task of ``shards`` (default: this process alone, nothing kept on disk).
    """
    items = load_benchmark(benchmark, Path(data), limit, images)
    shards = shards or Shards()
    found = shards.outcomes(benchmark, items, partial(score_items, methods), chunk, progress)
    categories = [it.category for it in items]
    pairs = bool(items) and isinstance(items[0], PairItem)
    return {m.name: swap_scores(categories, [f[m.name] for f in found]) if pairs
            else grouped(categories, [f[m.name] for f in found], partial(hit_rate, name="accuracy")) for m in methods}


def report_frame(results: dict) -> pd.DataFrame:
    """One row per method x split/category x metric: method, category, metric, value, its interval, n."""
    rows: list[dict] = []

    def walk(method: str, keys: list[str], node: dict) -> None:
        leaves = {k: v for k, v in node.items() if not isinstance(v, dict)}
        ci = node.get("ci", {})
        for metric, value in leaves.items():
            if metric != "n":
                low, high = ci.get(metric, (None, None))
                rows.append({"method": method, "category": "/".join(keys), "metric": metric, "value": value,
                             "low": low, "high": high, "n": leaves.get("n")})
        for k, v in node.items():
            if isinstance(v, dict) and k != "ci":
                walk(method, keys + [str(k)], v)

    for method, node in results.items():
        walk(str(method), [], node)
    return pd.DataFrame(rows, columns=["method", "category", "metric", "value", "low", "high", "n"])


def write_reports(report: dict, json_path: Path) -> list[Path]:
    """Writes ``report`` ({"benchmark", "model", "results"}) as JSON, and a CSV and an HTML chart beside it."""
    import plotly.express as px

    json_path = Path(json_path)
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(report, indent=2) + "\n")
    frame = report_frame(report["results"])
    csv_path, html_path = json_path.with_suffix(".csv"), json_path.with_suffix(".html")
    frame.to_csv(csv_path, index=False)
    fig = px.bar(
        frame.assign(above=frame["high"] - frame["value"], below=frame["value"] - frame["low"]),
        x="category", y="value", color="method", barmode="group", facet_row="metric", hover_data=["n", "low", "high"],
        error_y="above", error_y_minus="below",
        title=f"{report.get('benchmark', '')}: {report.get('model', '')}", range_y=[0, 100],
        labels={"value": "%", "category": ""},
    )
    fig.write_html(html_path, include_plotlyjs=True)  # embedded: the page must work offline
    log.info("wrote %s, %s, %s", json_path, csv_path, html_path)
    return [json_path, csv_path, html_path]
