"""The recorded binding reading of the interactions (``python -m explorer interactions --json``, the records
``docs/results/explanations/interaction-binding-*.json``) as a table: per split and kind, the true caption's spans on
the right object and the swapped caption's colour wins, for the model and for its no-binding null."""

from __future__ import annotations

import json
from pathlib import Path

from explorer.world import SPLITS

RECORDS = Path(__file__).resolve().parents[2] / "docs" / "results" / "explanations"  # the checkout's records
PATTERN = "interaction-binding-*.json"
WHERE = "docs/results/explanations/interaction-binding-*.json"
HEADERS = ["split", "kind", "right object (world-clip)", "right object (no binding)", "colour wins (world-clip)",
           "colour wins (no binding)", "n spans"]


def percent(figure: dict) -> str:
    """A percentage with its 95% interval, e.g. "75.0% (50.0 to 95.0)"."""
    low, high = figure["ci"]
    return f"{figure['percent']:.1f}% ({low:.1f} to {high:.1f})"


def record_rows(record: dict) -> list[list[str]]:
    """One row per split and kind of one record, in ``HEADERS``' order."""
    model, null = record["results"]["model"], record["results"]["null"]
    return [[split, kind, percent(shown["right_object"]), percent(null[split][kind]["right_object"]),
             percent(shown["colour_wins"]), percent(null[split][kind]["colour_wins"]),
             str(shown["right_object"]["spans"])]
            for split, kinds in model.items() for kind, shown in kinds.items()]


def recorded_rows(folder: Path = RECORDS) -> list[list[str]]:
    """Every record's rows in ``folder``, the world's splits in their order (none where the records are not there, as
    in an installed copy)."""
    rows = [row for path in sorted(folder.glob(PATTERN)) for row in record_rows(json.loads(path.read_text()))]
    return sorted(rows, key=lambda row: SPLITS.index(row[0]) if row[0] in SPLITS else len(SPLITS))
