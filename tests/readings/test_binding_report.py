"""Every tested binding verdict is checked on other render seeds (``explorer/readings/binding_report.py``): where
the seeds' verdicts differ the reading is "unstable" with each seed's figures beside it, not a verdict; the seeds can
run side by side and be merged into the same record (``checked_from``)."""

import pytest

from explorer.readings.binding_audit import problems
from explorer.readings.binding_report import UNSTABLE, cell, checked_from, checked_names, stable
from explorer.readings.significance import adjusted, against_draws


def _entries(values: dict[str, float]) -> dict[str, dict]:
    draws = [50.0 + 0.01 * i for i in range(500)]  # 50.00 to 54.99
    return {name: against_draws(v, draws) for name, v in values.items()}


def test_a_verdict_that_flips_on_another_seed_reads_unstable_with_the_seeds_spread():
    found = adjusted(_entries({"strong": 80.0, "edge": 54.99, "flat": 40.0}))
    assert found["strong"]["reading"] == "above chance"
    assert checked_names(found) == ["edge", "flat", "strong"]  # every tested verdict, far from its threshold or not
    again = {1: _entries({"edge": 52.0}), 2: _entries({"edge": 60.0})}  # seed 1 at chance, seed 2 above
    out = stable(found, 0, again)
    assert out["edge"]["reading"] == UNSTABLE
    assert {s: b["reading"] for s, b in out["edge"]["seeds"].items()} == {
        "0": "above chance", "1": "at chance", "2": "above chance"}
    assert out["strong"]["reading"] == "above chance" and "seeds" not in out["strong"]
    assert "seed 1: 52.0" in cell(out["edge"])  # the docs' cell shows the spread, not a verdict


def test_a_verdict_the_other_seeds_agree_with_stands():
    found = adjusted(_entries({"strong": 80.0, "edge": 54.99}))
    out = stable(found, 1, {0: _entries({"edge": 56.0}), 2: _entries({"edge": 57.0})})
    assert out["edge"]["reading"] == "above chance" and set(out["edge"]["seeds"]) == {"0", "1", "2"}


def _record(seed: int, values: dict[str, float]) -> dict:
    kind = {"pairs": 84, "renders": 8, "draws": 500, "widths": {"mlp": 16}}
    found = adjusted(_entries(values))
    return {"model": "m", "command": f"binding --no-check --render-seed {seed}", "figures": found, "seconds": 1.0,
            "null": {"render_seed": seed, "family": len(found), "checked": {"seeds": [], "readings": []},
                     "image": kind, "text": kind}}


def test_seeds_run_side_by_side_merge_into_the_record_one_run_writes():
    run = _record(0, {"strong": 80.0, "edge": 54.99, "flat": 40.0})
    merged = checked_from(run, [_record(1, {"strong": 79.0, "edge": 52.0, "flat": 41.0}),
                                _record(2, {"strong": 81.0, "edge": 60.0, "flat": 40.0})], "merge")
    one_run = stable(run["figures"], 0, {1: _entries({"strong": 79.0, "edge": 52.0, "flat": 41.0}),
                                         2: _entries({"strong": 81.0, "edge": 60.0, "flat": 40.0})})
    assert merged["figures"] == one_run and merged["figures"]["edge"]["reading"] == UNSTABLE
    assert merged["null"]["checked"]["readings"] == ["edge", "flat", "strong"] and merged["seconds"] == 3.0
    assert problems(merged) == []
    other = _record(1, {"strong": 79.0, "edge": 52.0, "flat": 41.0}) | {"model": "another"}
    with pytest.raises(ValueError, match="another model"):
        checked_from(run, [other], "merge")
    with pytest.raises(ValueError, match="its own render seed"):
        checked_from(run, [_record(0, {"strong": 1.0, "edge": 1.0, "flat": 1.0})], "merge")
