"""The recorded binding reading of the interactions as a table: each split and kind with its figures and intervals."""

import json
import shutil

from explorer.explain.interaction_record import HEADERS, RECORDS, recorded_rows


def test_each_record_gives_one_row_per_split_and_kind_with_its_figures(tmp_path):
    record = json.loads((RECORDS / "interaction-binding-id.json").read_text())
    shutil.copy(RECORDS / "interaction-binding-id.json", tmp_path)
    rows = recorded_rows(tmp_path)
    shown = record["results"]["model"]["id"]["attribute"]
    null = record["results"]["null"]["id"]["attribute"]
    assert len(rows) == 1 and len(rows[0]) == len(HEADERS)
    split, kind, right, right_null, colour, colour_null, spans = rows[0]
    assert (split, kind, spans) == ("id", "attribute", str(shown["right_object"]["spans"]))
    for cell, figure in ((right, shown["right_object"]), (right_null, null["right_object"]),
                         (colour, shown["colour_wins"]), (colour_null, null["colour_wins"])):
        low, high = figure["ci"]
        assert cell == f"{figure['percent']:.1f}% ({low:.1f} to {high:.1f})"


def test_a_folder_without_records_gives_no_rows(tmp_path):
    assert recorded_rows(tmp_path) == []
