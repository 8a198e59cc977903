"""A binding verdict near its threshold is checked on other render seeds (``explorer/readings/binding_report.py``):
where the seeds' verdicts differ the reading is "unstable" with each seed's figures beside it, not a verdict."""

from explorer.readings.binding_report import UNSTABLE, cell, near, stable
from explorer.readings.significance import adjusted, against_draws


def _entries(values: dict[str, float]) -> dict[str, dict]:
    draws = [50.0 + 0.01 * i for i in range(500)]  # 50.00 to 54.99
    return {name: against_draws(v, draws) for name, v in values.items()}


def test_a_verdict_that_flips_on_another_seed_reads_unstable_with_the_seeds_spread():
    found = adjusted(_entries({"strong": 80.0, "edge": 54.99, "flat": 40.0}))
    assert found["strong"]["reading"] == "above chance" and not near(found["flat"])
    assert near(found["edge"])  # adjusted p 2 x 2/501 = 0.008: within a factor 10 of 0.05
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
