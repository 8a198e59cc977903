"""The docs' tables from an ``eval`` report: ``python scripts/doc_tables.py docs/results/world-global-sgi.json``.

Prints one markdown table: a row per split and method, a column per kind, each cell "text / image / group" in
percent with the group score's 95% bootstrap interval (``eval`` resamples the items, seeded) in brackets. The docs
paste it beside the command that wrote the report, so every number there comes from that file.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

SCORES = ("text", "image", "group")


def cell(node: dict) -> str:
    values = " / ".join(f"{node[s]:.0f}" for s in SCORES if s in node)
    low, high = node.get("ci", {}).get("group", (None, None))
    return values + (f" [{low:.0f}, {high:.0f}]" if low is not None else "")


def table(report: dict) -> str:
    """A row per split and method (splits in the report's order), a column per kind."""
    results = report["results"]
    methods = list(results)
    splits = list(results[methods[0]])
    kinds = list(results[methods[0]][splits[0]])
    lines = [f"| split | method | {' | '.join(kinds)} |", "|---|---|" + "---|" * len(kinds)]
    for split in splits:
        for method in methods:
            cells = [cell(results[method][split][k]) for k in kinds]
            lines.append(f"| {split} | {method} | {' | '.join(cells)} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("report", type=Path, help="an eval --json report")
    print(table(json.loads(parser.parse_args().report.read_text())))


if __name__ == "__main__":
    main()
