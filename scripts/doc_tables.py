"""The docs' tables from ``eval`` reports: ``python scripts/doc_tables.py docs/results/world-global-sgi.json``.

Prints one markdown table: a row per split and method, a column per kind, each cell "text / image / group" in
percent (or a choice benchmark's one score, e.g. world-single's top-1) with the 95% bootstrap interval of the group
score (of that one score) in brackets; ``eval`` resamples the items, seeded. Several reports, each named
(``seed0=PATH seed1=PATH``), give one table with a first column naming the report of each row: the seeds of one
recipe side by side; with ``--kind K``, only kind K's cells, a column per report; with ``--range all,attribute``,
each group score's lowest and highest over the reports (the seed range, which the docs' tables lead with); with
``--pointing``, a ``pointing`` report's tables. The docs paste it beside the command that wrote each report, so
every number there comes from those files.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

SCORES = ("text", "image", "group")


def number(value: float) -> str:
    """A percentage to one decimal, without a trailing ``.0``: 7, 6.5, 75.2."""
    return f"{value:.1f}".removesuffix(".0")


def cell(node: dict) -> str:
    """``text / image / group [low, high]`` of a swap cell, ``score [low, high]`` of a choice one."""
    names = [s for s in SCORES if s in node] or [k for k in node if k not in ("n", "ci")]
    low, high = node.get("ci", {}).get(names[-1], (None, None))
    values = " / ".join(number(node[s]) for s in names)
    return values + (f" [{number(low)}, {number(high)}]" if low is not None else "")


def rows(report: dict) -> tuple[list[str], list[list[str]]]:
    """The kinds (columns) and a row ``[split, method, cells...]`` per split and method, in the report's order."""
    results = report["results"]
    methods = list(results)
    splits = list(results[methods[0]])
    kinds = list(results[methods[0]][splits[0]])
    return kinds, [[split, method, *(cell(results[method][split][k]) for k in kinds)]
                   for split in splits for method in methods]


def markdown(columns: list[str], body: list[list[str]]) -> str:
    """A markdown table of ``columns`` and the rows of ``body``."""
    lines = [f"| {' | '.join(columns)} |", "|" + "---|" * len(columns)]
    return "\n".join(lines + [f"| {' | '.join(row)} |" for row in body])


def table(report: dict) -> str:
    """A row per split and method (splits in the report's order), a column per kind."""
    kinds, body = rows(report)
    return markdown(["split", "method", *kinds], body)


def named_table(reports: dict[str, dict]) -> str:
    """One table of several reports with the same kinds, a first column naming each row's report."""
    parts = {name: rows(report) for name, report in reports.items()}
    kinds = next(iter(parts.values()))[0]
    if any(k != kinds for k, _ in parts.values()):
        raise ValueError("the reports have different kinds: " + "; ".join(f"{n}: {k}" for n, (k, _) in parts.items()))
    return markdown(["run", "split", "method", *kinds],
                    [[name, *row] for name, (_, body) in parts.items() for row in body])


def kind_table(reports: dict[str, dict], kind: str) -> str:
    """One kind's cells of several reports side by side: a row per split and method that every report has, a column
    per report (the seeds of one recipe, say)."""
    results = {name: report["results"] for name, report in reports.items()}
    first = next(iter(results.values()))
    methods = [m for m in first if all(m in r for r in results.values())]
    splits = list(first[methods[0]])
    missing = [f"{n}: {s}" for n, r in results.items() for s in splits if kind not in r[methods[0]].get(s, {})]
    if missing:
        raise ValueError(f"no {kind!r} cell in " + "; ".join(missing))
    body = [[split, method, *(cell(r[method][split][kind]) for r in results.values())]
            for split in splits for method in methods]
    return markdown(["split", "method", *results], body)


def range_table(groups: dict[str, dict[str, dict]], kinds: tuple[str, ...] = ("all", "attribute")) -> str:
    """The seed range first: for each group of reports (the seeds of one recipe, or of one head over one encoder), the
    lowest and highest group score over its reports, a row per split and method that all of the group's reports have,
    a column per kind. A group named "" adds no label to its methods."""
    body = []
    for label, reports in groups.items():
        results = [report["results"] for report in reports.values()]
        methods = [m for m in results[0] if all(m in r for r in results)]
        for split in [s for s in results[0][methods[0]] if all(s in r[methods[0]] for r in results)]:
            for method in methods:
                cells = []
                for kind in kinds:
                    groups_ = [r[method][split][kind]["group"] for r in results]
                    cells.append(f"{number(min(groups_))} to {number(max(groups_))}")
                body.append([split, f"{label}: {method}" if label else method, ", ".join(reports), *cells])
    return markdown(["split", "method", "seeds", *(f"{k}: group, lowest to highest" for k in kinds)],
                    sorted(body, key=lambda row: _SPLIT_ORDER.get(row[0], len(_SPLIT_ORDER))))


_SPLIT_ORDER = {s: i for i, s in enumerate(("id", "heldout", "shift", "style"))}


def pointing_tables(report: dict) -> str:
    """A ``pointing --json`` report's three tables: each map source's pointing [interval] / energy per split; where
    each source's map of an absent pair goes (the object of its shape / of its colour, pointing); each explainer's
    rank correlation with the trained model's maps as the image tower's blocks are randomized from the top."""
    splits = report["splits"]
    found = [[source, *(f"{number(r[s]['pointing'])} [{', '.join(number(v) for v in r[s]['ci']['pointing'])}] / "
                        f"{number(r[s]['energy'])}" for s in splits)] for source, r in report["results"].items()]
    swaps = [[source, *(f"{number(r[s]['shape_pointing'])} / {number(r[s]['colour_pointing'])}" for s in splits)]
             for source, r in report["swap_probe"].items()]
    parts = [markdown(["source", *splits], found),
             markdown(["source", *(f"{s}: shape / colour" for s in splits)], swaps)]
    if "sanity" in report:
        curves = report["sanity"]["explainers"]
        blocks = next(iter(curves.values()))["randomized_blocks"]
        parts.append(markdown(["explainer",
                               *(f"top {b} of {report['sanity']['blocks']} blocks random" for b in blocks)],
                              [[name, *(f"{r:.2f} [{lo:.2f}, {hi:.2f}]" for r, (lo, hi) in zip(c["spearman"], c["ci"]))]
                               for name, c in curves.items()]))
    return "\n\n".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("reports", nargs="+", help="an eval --json report, or several as NAME=PATH")
    parser.add_argument("--kind", help="with several reports: only this kind's cells, a column per report")
    parser.add_argument("--pointing", action="store_true", help="the report is pointing --json's")
    parser.add_argument("--range", help="with several reports: each group score's lowest and highest over them, for "
                        "these kinds (e.g. all,attribute); GROUP/NAME=PATH puts a report in a group of its own")
    args = parser.parse_args()
    given = args.reports
    if args.pointing:
        print(pointing_tables(json.loads(Path(given[0]).read_text())))
        return
    if len(given) == 1 and "=" not in given[0]:
        print(table(json.loads(Path(given[0]).read_text())))
        return
    if any("=" not in g for g in given):
        parser.error("name each of several reports: NAME=PATH")
    reports = {n: json.loads(Path(p).read_text()) for n, p in (g.split("=", 1) for g in given)}
    if args.range:
        groups: dict[str, dict[str, dict]] = {}
        for name, report in reports.items():
            label, _, seed = name.rpartition("/")
            groups.setdefault(label, {})[seed] = report
        print(range_table(groups, tuple(args.range.split(","))))
        return
    if args.kind:
        try:
            print(kind_table(reports, args.kind))
        except ValueError as error:
            parser.error(str(error))
        return
    print(named_table(reports))


if __name__ == "__main__":
    main()
