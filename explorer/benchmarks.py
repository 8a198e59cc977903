"""Public benchmarks scored by any methods, and their reports: JSON, a long-format CSV and a bar chart."""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from pathlib import Path
from typing import Callable, Iterable, Sequence

import pandas as pd
from tqdm import tqdm

from explorer.datasets import PairItem, SingleItem, load_benchmark
from explorer.evaluate import chunks, item_similarities, summarize, swap_outcome
from explorer.methods import ScoringMethod

log = logging.getLogger(__name__)

Progress = Callable[[Iterable], Iterable]


def _accuracy(hits: Sequence[bool]) -> dict[str, float]:
    """Percent of single-image items whose true caption scored higher, and the count."""
    return {"accuracy": round(100.0 * sum(hits) / len(hits), 2) if hits else 0.0, "n": len(hits)}


def _single(method: ScoringMethod, item: SingleItem, image) -> bool:
    """Correct when s(image, caption) > s(image, negative_caption); ties fail."""
    true, false = (s.value for s in method.score(image, [item.caption, item.negative_caption]))
    return bool(true > false)


def evaluate_benchmark(
    methods: Sequence[ScoringMethod],
    benchmark: str,
    data: Path,
    limit: int | None = None,
    progress: Progress | None = None,
    images: Path | None = None,
    chunk: int = 32,
) -> dict:
    """``{METHOD: {CATEGORY: scores, "all": scores}}``: text / image / group for pairs, accuracy for single images."""
    items = load_benchmark(benchmark, Path(data), limit, images)
    progress = progress or (lambda it: tqdm(it, desc=benchmark, unit="batch", leave=False))
    found: dict[str, dict[str, list]] = {m.name: defaultdict(list) for m in methods}
    for part in progress(chunks(items, chunk)):
        loaded = [[ref.load() for ref in (it.images if isinstance(it, PairItem) else (it.image,))] for it in part]
        for method in methods:  # images are read once per batch and shared by all methods
            method.prepare([im for ims in loaded for im in ims])
            for it, ims in zip(part, loaded):
                if isinstance(it, PairItem):
                    outcome = swap_outcome(item_similarities(method, ims, it.captions))
                else:
                    outcome = _single(method, it, ims[0])
                found[method.name][it.category].append(outcome)
    results: dict = {}
    for name, by_cat in found.items():
        score = summarize if items and isinstance(items[0], PairItem) else _accuracy
        out = {cat: score(v) for cat, v in by_cat.items()}
        out["all"] = score([o for v in by_cat.values() for o in v])
        results[name] = out
    return results


def report_frame(results: dict) -> pd.DataFrame:
    """One row per method x split/category x metric: columns method, category, metric, value, n."""
    rows: list[dict] = []

    def walk(method: str, keys: list[str], node: dict) -> None:
        leaves = {k: v for k, v in node.items() if not isinstance(v, dict)}
        for metric, value in leaves.items():
            if metric != "n":
                rows.append({"method": method, "category": "/".join(keys), "metric": metric, "value": value,
                             "n": leaves.get("n")})
        for k, v in node.items():
            if isinstance(v, dict):
                walk(method, keys + [str(k)], v)

    for method, node in results.items():
        walk(str(method), [], node)
    return pd.DataFrame(rows, columns=["method", "category", "metric", "value", "n"])


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
        frame, x="category", y="value", color="method", barmode="group", facet_row="metric", hover_data=["n"],
        title=f"{report.get('benchmark', '')}: {report.get('model', '')}", range_y=[0, 100],
        labels={"value": "%", "category": ""},
    )
    fig.write_html(html_path, include_plotlyjs=True)  # embedded: the page must work offline
    log.info("wrote %s, %s, %s", json_path, csv_path, html_path)
    return [json_path, csv_path, html_path]
