"""An evaluation's report (``explorer.eval.accuracy``), written as JSON, a long-format CSV and an offline bar chart;
with a second model, its results and the paired comparison (``explorer.eval.compare``) beside them."""

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


COMPARISON_COLUMNS = ["method", "category", "a", "b", "diff", "low", "high", "mcnemar_p", "mcnemar_p_holm", "n",
                      "fixes", "breaks"]


def comparison_frame(comparison: dict) -> pd.DataFrame:
    """One row per method x split/category of a comparison: both models' score, B - A, its interval, McNemar's p
    (and Holm-adjusted over the comparison's cells), the items and the discordant ones."""
    rows: list[dict] = []

    def walk(method: str, keys: list[str], node: dict) -> None:
        if "diff" in node:
            low, high = node["ci"]
            rows.append({**node, "method": method, "category": "/".join(keys), "low": low, "high": high})
            return
        for k, v in node.items():
            walk(method, keys + [str(k)], v)

    for method, node in comparison.items():
        walk(str(method), [], node)
    return pd.DataFrame(rows, columns=COMPARISON_COLUMNS)


FRAMES = {"comparison": comparison_frame}  # a table's own frame; every other table is results (``report_frame``)


def write_reports(report: dict, json_path: Path, tables: tuple[str, ...] = ("results",)) -> list[Path]:
    """Writes ``report`` ({"benchmark", "model", "results"}) as JSON, and beside it a CSV of each of its ``tables``
    (the first as PATH.csv, the others as PATH-TABLE.csv) and an HTML chart of the first (with a ``comparison``, the
    paired differences above both models' results); none with ``tables=()``."""
    json_path = Path(json_path)
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(report, indent=2) + "\n")
    paths = [json_path]
    for i, table in enumerate(tables):
        paths.append(json_path.with_suffix(".csv") if i == 0 else json_path.with_name(f"{json_path.stem}-{table}.csv"))
        write_csv(FRAMES.get(table, report_frame)(report[table]), paths[-1])
    if tables:
        paths.append(json_path.with_suffix(".html"))
        figures = [_chart(report, _results(report, tables[0]))]
        if "comparison" in tables:
            figures.insert(0, _comparison_chart(report))
        _write_html(figures, paths[-1])
    log.info("wrote %s", ", ".join(str(p) for p in paths))
    return paths


def _results(report: dict, table: str) -> pd.DataFrame:
    """The results to chart: the table's; with a second model, both models' (each method named with A or B)."""
    frame = report_frame(report[table])
    if "results_b" not in report:
        return frame
    return pd.concat([frame.assign(method=frame["method"] + " (A)"),
                      (b := report_frame(report["results_b"])).assign(method=b["method"] + " (B)")], ignore_index=True)


def _chart(report: dict, frame: pd.DataFrame):
    """The table's figures as grouped bars with their intervals."""
    import plotly.express as px

    models = report.get("model", "") + (f" (A) against {report['model_b']} (B)" if "model_b" in report else "")
    return px.bar(
        frame.assign(above=frame["high"] - frame["value"], below=frame["value"] - frame["low"]),
        x="category", y="value", color="method", barmode="group", facet_row="metric", hover_data=["n", "low", "high"],
        error_y="above", error_y_minus="below",
        title=f"{report.get('benchmark', '')}: {models}", range_y=[0, 100],
        labels={"value": "%", "category": ""},
    )


def _comparison_chart(report: dict):
    """B - A per method and category with its paired interval, McNemar's p written on each bar."""
    import plotly.express as px

    frame = comparison_frame(report["comparison"])
    fig = px.bar(
        frame.assign(above=frame["high"] - frame["diff"], below=frame["diff"] - frame["low"],
                     p=frame["mcnemar_p"].map(lambda p: f"p={p:.2g}")),
        x="category", y="diff", color="method", facet_row="method", text="p",
        hover_data=["a", "b", "low", "high", "mcnemar_p", "mcnemar_p_holm", "n", "fixes", "breaks"], error_y="above",
        error_y_minus="below", range_y=[-110, 110], height=180 + 420 * frame["method"].nunique(),
        title=f"{report.get('benchmark', '')}: {report['model_b']} (B) - {report['model']} (A), points of the group "
              f"score, 95% paired interval; McNemar's exact p",
        labels={"diff": "B - A (points)", "category": ""},
    )
    return fig.update_traces(textposition="outside", textangle=0, textfont_size=10, cliponaxis=False)


def _write_html(figures: list, path: Path) -> None:
    """The figures on one page, plotly.js embedded once (the page must work offline)."""
    parts = [fig.to_html(full_html=False, include_plotlyjs=i == 0) for i, fig in enumerate(figures)]
    path.write_text(f"<html><head><meta charset=\"utf-8\"></head><body>{''.join(parts)}</body></html>\n")
