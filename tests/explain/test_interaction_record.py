"""The recorded binding reading of the interactions as a table: each split and kind with its figures and intervals."""

import json
import shutil

from explorer.explain.interaction_record import HEADERS, NONE, RECORDS, record_rows, recorded_rows


def test_each_record_gives_one_row_per_split_and_kind_with_its_figures(tmp_path):
    record = json.loads((RECORDS / "interaction-binding-id.json").read_text())
    shutil.copy(RECORDS / "interaction-binding-id.json", tmp_path)
    rows = recorded_rows(tmp_path)
    kinds = record["results"]["model"]["id"]
    assert [row[:2] for row in rows] == [["id", kind] for kind in kinds] and {len(r) for r in rows} == {len(HEADERS)}
    for (split, kind, right, right_null, colour, colour_null, spans), shown in zip(rows, kinds.values()):
        null = record["results"]["null"]["id"][kind]
        assert spans.split(" / ")[0] == str(shown["right_object"]["spans"])
        for cell, figure in ((right, shown["right_object"]), (right_null, null["right_object"]),
                             (colour, shown.get("colour_wins")), (colour_null, null.get("colour_wins"))):
            if figure is None:
                assert cell == NONE
                continue
            low, high = figure["ci"]
            assert cell == f"{figure['percent']:.1f}% ({low:.1f} to {high:.1f}), {figure['reading']}"


def test_a_kind_without_swapped_pairs_shows_no_colour_figure():
    figure = {"percent": 62.5, "ci": [50.0, 75.0], "items": 24, "spans": 192, "reading": "above chance"}
    record = {"results": {"model": {"shift": {"size": {"right_object": figure}}},
                          "null": {"shift": {"size": {"right_object": {**figure, "percent": 50.0}}}}}}
    assert record_rows(record) == [["shift", "size", "62.5% (50.0 to 75.0), above chance",
                                    "50.0% (50.0 to 75.0), above chance", NONE, NONE, f"192 / {NONE}"]]


def test_a_folder_without_records_gives_no_rows(tmp_path):
    assert recorded_rows(tmp_path) == []
