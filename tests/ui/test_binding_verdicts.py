"""One verdict per binding reading: the Binding tab reads the shipped model from its record (the same family,
adjusted p, verdict and render-seed check, for every reading), another model's verdicts say they are unchecked, and
no verdict sentence says the model shows binding for a reading less than the smallest effect above its null."""

import json
import re
from pathlib import Path

import pytest

from explorer.readings.binding_report import RECORD, read_model
from explorer.readings.significance import SMALLEST, effect
from explorer.ui.binding_tab import COLUMNS, rows, verdict

FIGURES = json.loads(RECORD.read_text())["figures"]


@pytest.fixture(scope="module")
def shipped(embedded):
    return read_model(embedded)


def test_the_tab_reads_the_shipped_model_as_its_record_every_reading(shipped):
    assert shipped.record == RECORD.name
    shown = {f"{name}.{kind}": entry for kind, entries in shipped.readings.items() for name, entry in entries.items()}
    assert shown == FIGURES  # every reading: value, null, p, adjusted p, family, verdict and seeds, as recorded
    table = rows(shipped)
    assert len(table) == len(FIGURES)
    labels = {f"{kind}: {column}": f"{key}.{kind}" for kind in ("image", "text") for key, column in COLUMNS.items()}
    for row in table:
        entry = FIGURES[labels[row["reading"]]]
        assert row["verdict"] == verdict(entry) and "Unchecked" not in row["verdict"]
        if entry["null"].get("p_adjusted") is not None and entry["reading"] != "unstable":
            assert f"adjusted {entry['null']['p_adjusted']:.2g} over {entry['null']['family']} readings" in \
                row["verdict"]


def test_another_model_runs_the_table_readings_and_says_they_are_unchecked(embedded, tmp_path):
    found = read_model(embedded, 4, 2, draws=30, path=tmp_path / "none.json")
    assert found.record is None
    assert all("Unchecked on other drawings" in row["verdict"] or row["verdict"].startswith("Cannot tell")
               for row in rows(found))


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_no_verdict_says_binding_for_an_effect_under_the_smallest(name):
    entry = FIGURES[name]
    sentence = verdict(entry)
    found = effect(entry) if entry["null"].get("p_adjusted") is not None else None
    if found is not None and "effect" in entry:
        assert found == entry["effect"]  # the sentence's effect is the record's
    if sentence.startswith("Shows binding"):
        assert entry["reading"] == "above chance" and entry.get("binding", "shows binding") == "shows binding"
        assert found["interval"][0] >= SMALLEST and entry["value"] - entry["null"]["mean"] >= SMALLEST
    if found is not None and found["interval"][0] < SMALLEST:
        assert not sentence.startswith("Shows binding")
    if entry["reading"] == "above chance":  # its effect, with its interval, beside the p
        assert re.search(r"[+-]\d+\.\d\d points \[-?\d+\.\d\d, -?\d+\.\d\d\]", sentence)
