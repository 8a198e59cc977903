"""What the commands share: how the command line was called (for the reports that record it), how a report is
printed and written, and what a world split is."""

from __future__ import annotations

import json
import sys
from pathlib import Path

SPLIT_HELP = ("comma-separated world splits: id, heldout, shift, style (test: to report), drawn-white, drawn-light, "
              "drawn-grey, drawn-dark (seen objects drawn by another renderer), or any of them after val- "
              "(validation: to choose a recipe, seed or setting)")  # eval's and pointing's --split


def prog() -> str:
    """How this command line was called: the installed console script, or ``python -m explorer``."""
    return "binding-explorer" if Path(sys.argv[0]).name == "binding-explorer" else "python -m explorer"


def command(argv: list[str]) -> str:
    """The command as given, as a report records it: ``python -m explorer binding --json out.json``."""
    return " ".join([prog(), *argv])


def print_report(report: dict, path: str | None, tables: tuple[str, ...] = ()) -> int:
    """Print a command's report, and write it to ``path`` when one is given, with a CSV of each of its ``tables``
    and an HTML chart of the first beside it (``accuracy_reports.write_reports``)."""
    from explorer.eval.accuracy_reports import write_reports

    print(json.dumps(report, indent=2))
    if path:
        write_reports(report, Path(path), tables)
    return 0
