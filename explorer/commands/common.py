"""What the commands share: the flags several of them take, each declared once; how the command line was called (for
the reports that record it), how a report is printed and written, and what a world split is."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from explorer import world

SPLIT_HELP = ("comma-separated world splits: id, heldout, shift, style (test: to report), drawn-white, drawn-light, "
              "drawn-grey, drawn-dark (seen objects drawn by another renderer), or any of them after val- "
              "(validation: to choose a recipe, seed or setting)")  # eval's and pointing's --split
# The flags several commands take, each declared here once (its type, default, metavar); a command adds one with
# ``add_flag`` and the help that is its own (what its --out holds, where its --device trains). The model flags
# (--model, --device, --precision, ...) are the settings' own, added by ``model_args.add_model_args``.
FLAGS: dict[str, dict[str, Any]] = {
    "--json": {},
    "--out": {"metavar": "PATH"},
    "--run-dir": {"metavar": "DIR"},
    "--no-card": {"action": "store_true"},
    "--device": {},  # where train-world and binding-sweep train (the model commands' is the setting's)
    "--workers": {"type": int, "default": 0, "metavar": "N"},
    "--split": {"default": ",".join(world.SPLITS)},
    "--limit": {"type": int, "metavar": "N"},
    "--kinds": {"metavar": "KINDS"},  # the world's kinds of swap items, comma-separated
}


def add_flag(parser: argparse.ArgumentParser, flag: str, help: str, **changed: Any) -> None:
    """``flag`` as ``FLAGS`` declares it, with this command's ``help`` and what it ``changed`` (a default of its
    own)."""
    parser.add_argument(flag, help=help, **(FLAGS[flag] | changed))


def add_switch(parser: argparse.ArgumentParser, flag: str, help: str) -> None:
    """An on/off ``flag``, off unless given."""
    parser.add_argument(flag, action="store_true", help=help)


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
