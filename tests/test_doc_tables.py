from scripts.doc_tables import table


def test_a_report_becomes_one_row_per_split_and_method_with_the_group_interval():
    cell = {"text": 20.0, "image": 11.0, "group": 7.0, "n": 100, "ci": {"group": [2.0, 12.0]}}
    report = {"results": {m: {s: {"attribute": cell, "all": cell} for s in ("id", "heldout")} for m in ("global", "sgi")}}
    lines = table(report).splitlines()
    assert lines[0] == "| split | method | attribute | all |"
    assert lines[2:] == [f"| {s} | {m} | 20 / 11 / 7 [2, 12] | 20 / 11 / 7 [2, 12] |"
                         for s in ("id", "heldout") for m in ("global", "sgi")]
