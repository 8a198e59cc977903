"""Binding verdicts reproduce (docs/binding.md, "Verdicts that reproduce"): the same ``binding`` run twice on one
machine gives the same record, figure for figure (at the default grid the second run predates the swap pair as the
unit, so the readings whose code did not change are compared: value, interval, draws and p), and a run on another
drawing of the scenes (``--render-seed 1``) gives every reading the same verdict, or one of the two runs reads it
"unstable" with the seeds' spread beside it. A
reading that cannot be tested on one drawing (its flipped tables all read what it reads), or reads under its null's
range there ("below chance": a description, no test with a correction), and reads at chance on the other claims no
binding either way: the two agree."""

import json
from pathlib import Path

import pytest

RESULTS = Path(__file__).resolve().parents[2] / "docs" / "results"
RUNS = {"small": ("binding-small.json", "binding-small-rerun.json", "binding-small-seed1.json"),
        "default": ("binding-embedded.json", "binding-embedded-rerun.json", "binding-embedded-seed1.json")}


def _figures(name: str) -> dict:
    return json.loads((RESULTS / name).read_text())["figures"]


def _same(entry: dict) -> tuple:
    null = entry["null"]
    return entry["value"], entry.get("interval"), null.get("p"), null.get("p_adjusted"), entry["reading"]


def _drawn(entry: dict) -> tuple:
    null = entry["null"]
    return entry["value"], entry.get("interval"), null.get("p"), null.get("at_or_above"), null.get("draws")


def _pairs_counted(name: str) -> bool:
    return json.loads((RESULTS / name).read_text())["null"]["image"].get("unit") == "pairs"


@pytest.mark.parametrize("grid", RUNS)
def test_a_run_twice_on_one_machine_gives_the_same_record(grid):
    first, again, _ = (_figures(name) for name in RUNS[grid])
    if _pairs_counted(RUNS[grid][0]) == _pairs_counted(RUNS[grid][1]):
        assert {n: _same(e) for n, e in first.items()} == {n: _same(e) for n, e in again.items()}
    unchanged = [n for n in first if not n.startswith("swap.")]
    assert {n: _drawn(first[n]) for n in unchanged} == {n: _drawn(again[n]) for n in unchanged}


@pytest.mark.parametrize("grid", RUNS)
def test_another_render_seed_gives_the_same_verdicts_or_says_unstable(grid):
    first, _, other = (_figures(name) for name in RUNS[grid])
    quiet = {"not tested": "at chance", "below chance": "at chance"}  # no binding claimed either way
    for name, entry in first.items():
        verdicts = {quiet.get(e["reading"], e["reading"]) for e in (entry, other[name])}
        if len(verdicts) > 1:
            marked = [e for e in (entry, other[name]) if e["reading"] == "unstable"]
            assert marked, (name, verdicts)
            assert all(len({s["reading"] for s in e["seeds"].values()}) > 1 for e in marked)


def _seed0(entry: dict) -> str:
    """A reading's verdict on render seed 0 (the float paths' records check fewer readings on other seeds)."""
    return entry.get("seeds", {}).get("0", entry)["reading"]


@pytest.mark.parametrize("path", ["binding-embedded-avx2.json", "binding-embedded-bf16.json"])
def test_each_float_path_gives_every_verdict_of_the_default_one(path):
    """The float paths' records predate the swap pair as the unit: their table and retrieval readings, whose code
    did not change, are compared."""
    default, other = _figures("binding-embedded.json"), _figures(path)
    assert other.keys() == default.keys()
    unchanged = [n for n in default if not n.startswith("swap.")]
    assert {n: _seed0(other[n]) for n in unchanged} == {n: _seed0(default[n]) for n in unchanged}


def test_the_float_paths_compared_are_other_kernels_and_the_comparison_finds_no_change():
    record = json.loads((RESULTS / "binding-float-paths.json").read_text())
    kernels = record["kernels"]
    assert kernels["fp32, AVX2"]["capability"] == "AVX2" and kernels["fp32, AVX2"]["fp32_matmul_differs"]
    grid = record["grids"]["8 x 3"]
    assert set(grid["paths"]) == set(kernels) and grid["changed"] == []
    assert all(v["same"] for v in grid["verdicts"].values()) and len(grid["verdicts"]) == len(_figures(
        "binding-embedded.json"))


def test_the_controls_record_holds_each_control_and_a_power_curve_that_falls_with_the_noise():
    record = json.loads((RESULTS / "binding-controls.json").read_text())
    controls, power = record["controls"], record["power"]
    noisy = [label for label in controls if ", noise " in label]
    levels = [label.rsplit(" ", 1)[1] for label in noisy]
    assert levels == ["0.25", "0.5", "1", "2"]
    for name, by_level in power.items():  # 1 where the reading finds the binding at that noise
        assert [by_level[level] for level in levels] == sorted((by_level[level] for level in levels), reverse=True)
        assert all(by_level[level] == (controls[label]["figures"][name]["reading"] == "above chance")
                   for label, level in zip(noisy, levels))
    assert sum(by_level["2"] for by_level in power.values()) < sum(by_level["0.25"] for by_level in power.values())
    for label in ("control: bag of concepts", "control: random features",
                  "control: bag of concepts + which colour is nearer the centre"):
        assert "above chance" not in {entry["reading"] for entry in controls[label]["figures"].values()}
