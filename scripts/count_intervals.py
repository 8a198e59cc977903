"""Put 95% bootstrap intervals beside the percentages of a doc's tables whose per-item outcomes were not kept.

``python scripts/count_intervals.py docs/recognition.md`` rewrites the file in place; ``--check`` only says whether
it is up to date. A table opts in with comments above it, one per item count, naming its columns::

    <!-- intervals 500: world-single id | heldout | shift -->
    <!-- intervals 200: id attribute group -->

Each plain percentage in those columns (bold kept) becomes ``97.0 [95.4, 98.2]``. A percentage of n items is k hits,
and the bootstrap that ``eval`` runs over items (``explorer/core/intervals.py``, same resamples and seed) depends, for one
percentage, on k and n alone: it resamples n outcomes of which k are hits. Rerunning the script gives the same text.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as python scripts/count_intervals.py
from explorer.core.intervals import percent_intervals  # noqa: E402

DIRECTIVE = re.compile(r"<!-- intervals (\d+): (.*?) -->")
CELL = re.compile(r"(\*\*)?(\d+(?:\.\d+)?)(\*\*)?(?: \[[\d.]+, [\d.]+\])?")


def count_interval(percent: float, n: int) -> tuple[float, float]:
    """The interval of ``percent`` of ``n`` items; refuses a figure that is not a whole count of n."""
    hits = round(percent * n / 100)
    if abs(100 * hits / n - percent) > 0.051:
        raise ValueError(f"{percent} is not a count of {n} items")
    (low, high), = percent_intervals(np.arange(n) < hits)
    return low, high


def with_interval(text: str, n: int) -> str:
    """A cell with its interval (a cell that is not one percentage, like "-" or "254 of 254", stays as it is)."""
    match = CELL.fullmatch(text)
    if match is None:
        return text
    bold, value, _ = match.groups()
    low, high = count_interval(float(value), n)
    mark = bold or ""
    return f"{mark}{value}{mark} [{low:.1f}, {high:.1f}]"


def split_row(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def rewrite(text: str) -> str:
    """The doc with every opted-in column's percentages carrying their intervals."""
    out, counts = [], {}
    header: list[str] | None = None
    for line in text.splitlines():
        directive = DIRECTIVE.fullmatch(line.strip())
        if directive:
            counts.update({name.strip(): int(directive[1]) for name in directive[2].split("|")})
        elif line.startswith("|") and counts:
            cells = split_row(line)
            if header is None:
                header = cells
                missing = set(counts) - set(header)
                if missing:
                    raise ValueError(f"no column {', '.join(sorted(missing))} in the table {' | '.join(header)}")
            elif not set(line) <= set("|-: "):
                n_of = [counts.get(name) for name in header]
                line = "| " + " | ".join(c if n is None else with_interval(c, n) for c, n in zip(cells, n_of)) + " |"
        else:
            counts, header = ({}, None) if header is not None else (counts, header)
        out.append(line)
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("docs", nargs="+", type=Path)
    parser.add_argument("--check", action="store_true", help="change nothing; fail if a doc is not up to date")
    args = parser.parse_args()
    stale = []
    for doc in args.docs:
        old = doc.read_text()
        try:
            new = rewrite(old)
        except ValueError as error:
            parser.error(f"{doc}: {error}")
        if new != old:
            stale.append(doc)
            if not args.check:
                doc.write_text(new)
    if args.check and stale:
        parser.exit(1, f"not up to date: {', '.join(map(str, stale))}; run python scripts/count_intervals.py\n")


if __name__ == "__main__":
    main()
