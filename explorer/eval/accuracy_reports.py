"""An evaluation's report (``explorer.eval.accuracy``), written as JSON, a long-format CSV and an offline bar chart."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pandas as pd

from explorer.core.csv_cells import write_csv

log = logging.getLogger(__name__)


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


def write_reports(report: dict, json_path: Path, tables: tuple[str, ...] = ("results",)) -> list[Path]:
    """Writes ``report`` ({"benchmark", "model", "results"}) as JSON, and beside it a CSV of each of its ``tables``
    (the first as PATH.csv, the others as PATH-TABLE.csv) and an HTML chart of the first; none with ``tables=()``."""
    json_path = Path(json_path)
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(report, indent=2) + "\n")
    paths = [json_path]
    for i, table in enumerate(tables):
        paths.append(json_path.with_suffix(".csv") if i == 0 else json_path.with_name(f"{json_path.stem}-{table}.csv"))
        write_csv(report_frame(report[table]), paths[-1])
    if tables:
        paths.append(json_path.with_suffix(".html"))
        _chart(report, report_frame(report[tables[0]]), paths[-1])
    log.info("wrote %s", ", ".join(str(p) for p in paths))
    return paths


def _chart(report: dict, frame: pd.DataFrame, path: Path) -> None:
    """The table's figures as grouped bars with their intervals, plotly.js embedded (the page must work offline)."""
    import plotly.express as px

    fig = px.bar(
        frame.assign(above=frame["high"] - frame["value"], below=frame["value"] - frame["low"]),
        x="category", y="value", color="method", barmode="group", facet_row="metric", hover_data=["n", "low", "high"],
        error_y="above", error_y_minus="below",
        title=f"{report.get('benchmark', '')}: {report.get('model', '')}", range_y=[0, 100],
        labels={"value": "%", "category": ""},
    )
    fig.write_html(path, include_plotlyjs=True)
