"""Every binding record is held to its own draws (``explorer/readings/binding_audit.py``): each p, adjusted p, count,
unit, family and seed verdict recomputes from what the record stores, in every record under docs/results, cited by
the docs or not; and each kind of edit, made to a copy of a record, is caught."""

import copy
import json
from pathlib import Path

import pytest

from explorer.readings.binding_audit import problems

RESULTS = Path(__file__).resolve().parents[2] / "docs" / "results"


def _records() -> dict[str, dict]:
    """Every binding record: ``binding --json`` runs, and each control of ``binding --controls``."""
    out = {}
    for path in sorted(RESULTS.glob("binding-*.json")):
        record = json.loads(path.read_text())
        if "figures" in record:
            out[path.name] = record
        for label, control in record.get("controls", {}).items():
            out[f"{path.name}: {label}"] = control
    return out


RECORDS = _records()


def test_there_are_records_to_hold():
    assert "binding-embedded.json" in RECORDS and "binding-embedded-seed2.json" in RECORDS
    assert any(": control" in name for name in RECORDS)


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_every_record_recomputes_from_its_own_draws(name):
    assert problems(RECORDS[name]) == []


def _first(figures: dict, test) -> str:
    return next(name for name, entry in figures.items() if test(entry))


def _seeded(record):
    name = _first(record["figures"], lambda e: len(e.get("seeds", {})) > 1)
    return record["figures"][name]["seeds"][next(s for s in record["figures"][name]["seeds"] if s != "0")]


def _flip_seed(record):
    brief = _seeded(record)
    brief["reading"] = "at chance" if brief["reading"] == "above chance" else "above chance"


def _seed_p(record):
    _seeded(record).update(p_adjusted=0.2, reading="at chance")


def _one_draw(record):
    entry = record["figures"][_first(record["figures"], lambda e: len(e["null"].get("values", [])) >= 500)]
    entry["null"]["values"][0] = 99.0


def _all_draws(record):
    entry = record["figures"][_first(record["figures"], lambda e: e["null"].get("at_or_above") == 0)]
    entry["null"]["values"] = [70.0] * len(entry["null"]["values"])


def _at_or_above(record):
    entry = record["figures"][_first(record["figures"], lambda e: e["null"].get("at_or_above") == 0)]
    entry["null"]["at_or_above"] = 40


def _units(record):
    entry = record["figures"][_first(record["figures"], lambda e: "units" in e["null"] and e["null"].get("p"))]
    entry["null"]["units"] *= 4


def _family(record):
    record["null"]["family"] = 22


def _p(record):
    entry = record["figures"][_first(record["figures"], lambda e: e["null"].get("p") is not None)]
    entry["null"]["p"] = entry["null"]["p"] / 3


def _adjusted(record):
    entry = record["figures"][_first(record["figures"], lambda e: e["null"].get("p_adjusted") is not None)]
    entry["null"]["p_adjusted"] = 0.01 if entry["null"]["p_adjusted"] > 0.05 else 0.5


def _verdict(record):
    entry = record["figures"][_first(record["figures"], lambda e: e["reading"] == "above chance")]
    entry["reading"] = "at chance"


def _unstable(record):
    entry = record["figures"][_first(record["figures"], lambda e: e["reading"] == "unstable")]
    entry["reading"] = entry["seeds"]["0"]["reading"]


EDITS = {"a seed's verdict flipped": _flip_seed, "a seed's adjusted p and verdict edited": _seed_p,
         "one draw changed": _one_draw, "all of a null's draws changed": _all_draws, "at_or_above edited": _at_or_above,
         "units edited": _units, "family edited": _family, "a p edited": _p, "an adjusted p edited": _adjusted,
         "a verdict flipped": _verdict, "an unstable reading given one seed's verdict": _unstable}


@pytest.mark.parametrize("record", ["binding-embedded.json", "binding-embedded-rerun.json"])
@pytest.mark.parametrize("edit", EDITS)
def test_each_kind_of_edit_is_caught(edit, record):
    """The rerun record is one the docs do not cite figure by figure: its edits are caught all the same."""
    changed = copy.deepcopy(RECORDS[record])
    EDITS[edit](changed)
    assert changed != RECORDS[record]
    assert problems(changed), edit
