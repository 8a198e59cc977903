"""A leaderboard (``explorer.eval.leaderboard``) written as JSON, two CSV files (the table, the paired differences)
and one offline HTML page of both tables."""

from __future__ import annotations

import html
import json
import logging
from pathlib import Path
from typing import Sequence

import pandas as pd

from explorer.core.csv_cells import write_csv

log = logging.getLogger(__name__)
TABLE = ["model", "benchmark", "split", "kind", "method", "score", "value", "low", "high", "n"]
PAIRED = ["model", "against", "benchmark", "split", "kind", "method", "a", "b", "diff", "low", "high", "mcnemar_p",
          "mcnemar_p_holm", "n", "fixes", "breaks"]
CHECKED = ["model", "benchmark", "ours", "reported", "diff", "agrees", "n", "source"]


def _cell(value: object) -> str:
    return "" if value is None else html.escape(str(value))


def _html_table(rows: Sequence[dict], columns: Sequence[str], title: str) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{_cell(r.get(c))}</td>" for c in columns) + "</tr>" for r in rows)
    return f"<h2>{html.escape(title)}</h2>\n<table>\n<tr>{head}</tr>\n{body}\n</table>\n"


def leaderboard_page(report: dict) -> str:
    """The page: models x benchmarks (each cell the headline figure and its interval), then the long table and the
    paired differences against the first model."""
    rows = report["table"]
    grid = pd.DataFrame(rows)
    board = ""
    if len(grid):
        grid["cell"] = [f"{r.value} [{r.low}, {r.high}] {r.score}" for r in grid.itertuples()]
        grid["column"] = [" ".join(p for p in (r.benchmark, r.split, "" if r.kind == "all" else r.kind, r.method) if p)
                          for r in grid.itertuples()]
        wide = grid.pivot_table(index="model", columns="column", values="cell", aggfunc="first", sort=False)
        wide = wide.reindex(report["models"])
        board = _html_table([{"model": m, **row} for m, row in wide.iterrows()], ["model", *wide.columns],
                            "Models x benchmarks: each benchmark's headline figure, percent [95% interval]")
    style = ("body{font-family:sans-serif;margin:1em}table{border-collapse:collapse;margin-bottom:1.5em}"
             "td,th{border:1px solid #999;padding:3px 6px;text-align:left}")
    paired = _html_table(report["paired_rows"], PAIRED,
                         f"Each model against {report['models'][0]}: the difference in points (b - a) on the "
                         f"headline figure's verdicts, its 95% paired interval and McNemar's exact p")
    checked = _html_table(report["reported_check"], CHECKED, "Our figures against the reported ones (global "
                          "cosine; difference in points)") if report.get("reported_check") else ""
    return (f"<!doctype html>\n<html><head><meta charset='utf-8'><title>Leaderboard</title><style>{style}</style>"
            f"</head><body>\n<h1>Leaderboard</h1>\n{board}{checked}{paired}{_html_table(rows, TABLE, 'Every figure')}"
            f"</body></html>\n")


def write_leaderboard(report: dict, json_path: Path) -> list[Path]:
    """``report`` as JSON at ``json_path``, the table as PATH.csv, the paired differences as PATH-paired.csv and
    the page as PATH.html; the paths written."""
    json_path = Path(json_path)
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(report, indent=2) + "\n")
    paths = [json_path, write_csv(pd.DataFrame(report["table"], columns=TABLE), json_path.with_suffix(".csv")),
             write_csv(pd.DataFrame(report["paired_rows"], columns=PAIRED),
                       json_path.with_name(f"{json_path.stem}-paired.csv"))]
    paths.append(json_path.with_suffix(".html"))
    paths[-1].write_text(leaderboard_page(report), encoding="utf-8")
    log.info("wrote %s", ", ".join(str(p) for p in paths))
    return paths
