"""The recorded binding reading of the interactions (``python -m explorer interactions --json``, the records
``docs/results/explanations/interaction-binding-*.json``) as a table: per split and kind, the true caption's spans on
the right object and the swapped caption's colour wins, for the model and for its no-binding null."""

from __future__ import annotations

import json
from pathlib import Path

from explorer.explain.interaction_binding import FIGURES
from explorer.world import KINDS, SPLITS

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


def _kinds(record: dict):
    """(split, kind, the model's figures, the no-binding model's) of each split and kind of one record."""
    model, null = record["results"]["model"], record["results"]["null"]
    for split, kinds in model.items():
        for kind, shown in kinds.items():
            yield split, kind, shown, null[split][kind]


def _spans(shown: dict) -> str:
    return " / ".join(str(shown[name]["spans"]) if name in shown else NONE for name in FIGURES)


def record_rows(record: dict) -> list[list[str]]:
    """One row per split and kind of one record, in ``HEADERS``' order."""
    return [[split, kind, *(percent(side.get(name)) for name in FIGURES for side in (shown, null)), _spans(shown)]
            for split, kind, shown, null in _kinds(record)]


def recorded_rows(folder: Path = RECORDS) -> list[list[str]]:
    """Every record's rows in ``folder``, the world's splits in their order (none where the records are not there, as
    in an installed copy)."""
    return [row for record in recorded(folder) for row in record_rows(record)]


def recorded(folder: Path = RECORDS) -> list[dict]:
    """Every record in ``folder``, by the world's order of their first split and kind."""
    def order(record: dict) -> tuple[int, int]:
        split, kind = record["splits"][0], record["kinds"][0]
        return (SPLITS.index(split) if split in SPLITS else len(SPLITS), KINDS.index(kind) if kind in KINDS else 0)

    return sorted((json.loads(path.read_text()) for path in sorted(folder.glob(PATTERN))), key=order)


def _cell(figure: dict | None) -> str:
    return NONE if figure is None else f"{figure['percent']:.1f} [{figure['ci'][0]:.1f}, {figure['ci'][1]:.1f}]"


def markdown(records: list[dict]) -> str:
    """The records as docs/explanations.md shows them: a row per split and kind, each figure with its interval, the
    model's beside the no-binding model's, the items and the spans behind each."""
    head = ["split", "kind", "right object %: model", "right object %: no binding", "colour wins %: model",
            "colour wins %: no binding", "items", "spans (right object / colour wins)"]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for record in records:
        for split, kind, shown, null in _kinds(record):
            cells = [_cell(side.get(name)) for name in FIGURES for side in (shown, null)]
            lines.append(f"| {split} | {kind} | {' | '.join(cells)} | {shown['right_object']['items']} | "
                         f"{_spans(shown)} |")
    return "\n".join(lines) + "\n"
