"""The recorded binding reading of the interactions (``python -m explorer interactions --json``, the records
``docs/results/explanations/interaction-binding-*.json``) as a table: per split and kind, the true caption's spans on
the right object and the swapped caption's colour wins, for the model and for its no-binding null."""

from __future__ import annotations

import json
from pathlib import Path

from explorer.explain.interaction_binding import FIGURES
from explorer.world import SPLITS

RECORDS = Path(__file__).resolve().parents[2] / "docs" / "results" / "explanations"  # the checkout's records
PATTERN = "interaction-binding-*.json"
WHERE = "docs/results/explanations/interaction-binding-*.json"
HEADERS = ["split", "kind", "right object (world-clip)", "right object (no binding)", "colour wins (world-clip)",
           "colour wins (no binding)", "n spans (right object / colour wins)"]
NONE = "-"  # a figure a kind has no spans for: size and relation swaps name no absent colour-shape pair


def percent(figure: dict | None) -> str:
    """A percentage with its 95% interval and its reading against chance, e.g. "75.0% (50.0 to 95.0), at chance"."""
    if figure is None:
        return NONE
    low, high = figure["ci"]
    return f"{figure['percent']:.1f}% ({low:.1f} to {high:.1f}), {figure['reading']}"


def record_rows(record: dict) -> list[list[str]]:
    """One row per split and kind of one record, in ``HEADERS``' order."""
    model, null = record["results"]["model"], record["results"]["null"]
    rows = []
    for split, kinds in model.items():
        for kind, shown in kinds.items():
            spans = " / ".join(str(shown[name]["spans"]) if name in shown else NONE for name in FIGURES)
            rows.append([split, kind, *(percent(side.get(name)) for name in FIGURES
                                        for side in (shown, null[split][kind])), spans])
    return rows


def recorded_rows(folder: Path = RECORDS) -> list[list[str]]:
    """Every record's rows in ``folder``, the world's splits in their order (none where the records are not there, as
    in an installed copy)."""
    rows = [row for path in sorted(folder.glob(PATTERN)) for row in record_rows(json.loads(path.read_text()))]
    return sorted(rows, key=lambda row: SPLITS.index(row[0]) if row[0] in SPLITS else len(SPLITS))
