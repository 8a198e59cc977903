"""The coverage sweep (the binding paper's claim): object spaces, cells that train once and are recorded, the
correlation and its interval, and the command that assembles whatever cells are done."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import quick_probes

from explorer import world
from explorer.core.intervals import GROUP_CHANCE, against, correlation_interval, correlation_reading
from explorer.training import sweep
from explorer.training.config import TrainConfig
from explorer.training.world_clip import training_objects
from explorer.world.space import ObjectSpace

ROOT = Path(__file__).resolve().parents[2]


def test_the_benchmarks_space_keeps_the_benchmarks_split_of_seen_and_held_out_objects():
    space = ObjectSpace.parse("8x4")
    assert space.size == len(world.ALL_COMBOS) and space.captions() == world.single_captions()
    for coverage in (0.25, 0.5, 0.75, 1.0):
        assert space.seen(coverage) == world.seen_combos(coverage)


def test_a_larger_space_sees_every_colour_and_shape_and_holds_out_the_rest_from_training():
    space = ObjectSpace.parse("16x12")
    cfg = TrainConfig(coverage=0.25, object_space="16x12")
    seen = training_objects(cfg)
    assert len(seen) == round(0.25 * 192) and {c for c, _ in seen} == set(space.colors) and \
        {s for _, s in seen} == set(space.shapes)
    held = space.heldout(0.25)
    assert len(held) == 192 - len(seen) and not set(held) & seen
    items = space.heldout_items(40, 0.25)
    assert all(it.captions[it.right[0]] == it.images[0].objects[0].phrase() and it.images[0].objects[0].combo in held
               for it in items)
    assert len(items[0].captions) == 192 and len({it.images[0].objects[0].combo for it in items}) > 20


def test_a_spaces_held_out_swaps_exchange_colours_and_show_an_unseen_object_in_each_image():
    """The sweep's binding outcome: attribute swaps over the space's own colours and shapes, each image holding an
    object training never showed, the same items on every call."""
    space = ObjectSpace.parse("16x12")
    held, seen = set(space.heldout(0.25)), space.seen(0.25)
    items = space.heldout_swaps(30, 0.25)
    for item in items:
        before, after = ([o.combo for o in image.objects] for image in item.images)
        assert after == [(before[1][0], before[0][1]), (before[0][0], before[1][1])]  # the colours exchanged
        assert set(before) & held and set(after) & held and set(before + after) <= held | seen
        assert item.kind == "attribute" and item.captions[0] != item.captions[1]
    assert {c for it in items for o in it.images[0].objects for c in [o.color]} - set(world.COLORS)  # beyond the 8
    assert [it.captions for it in space.heldout_swaps(30, 0.25)] == [it.captions for it in items]
    with pytest.raises(ValueError, match="holds no object out"):
        ObjectSpace.parse("8x4").heldout_swaps(5, 1.0)


def test_bad_spaces_and_mixed_training_data_are_refused(tmp_path):
    for text in ("16", "1x4", "40x4", "8x40"):
        with pytest.raises(ValueError, match="object space"):
            ObjectSpace.parse(text)
    with pytest.raises(ValueError, match="no --extra-concepts"):
        training_objects(TrainConfig(object_space="16x12", extra_concepts=4))
    with pytest.raises(ValueError, match="holds no object out"):
        ObjectSpace.parse("8x4").heldout_items(5, 1.0)


def test_the_correlation_interval_resamples_cells():
    x = np.arange(10.0)
    assert correlation_interval(x, 2 * x + 1) == [1.0, 1.0]
    rng = np.random.default_rng(0)
    low, high = correlation_interval(rng.normal(size=30), rng.normal(size=30))
    assert low < 0 < high
    noisy_low, noisy_high = correlation_interval(x, x + rng.normal(scale=3, size=10))
    assert 0 < noisy_low < noisy_high < 1


def test_the_correlation_reads_the_named_probes_fit():
    rows = [{"heldout_top1": h, "product_fit": p, "additive_fit": a}
            for h, p, a in ((10, 50, 20), (40, 30, 50), (80, 20, 90), (90, 10, 95), (95, 5, 97), (99, 2, 99))]
    product, additive = sweep.correlation(rows), sweep.correlation(rows, "additive_fit")
    assert product["r"] < -0.9 < 0.9 < additive["r"] and product["cells"] == additive["cells"] == 6
    assert product["reading"] == "negative" and additive["reading"] == "positive"  # Fisher clears zero, p < 0.05
    assert product["p_permutation"] == additive["p_permutation"] == pytest.approx(2 / 720, abs=1e-4)  # exact
    assert sweep.correlation(rows[:4])["p_permutation"] > 0.08  # 4 cells: 24 orderings, p 2 / 24 at the least
    assert sweep.correlation(rows[:4])["reading"] == "not supported"
    assert sweep.correlation(rows[:2])["r"] is None is sweep.correlation(rows[:2])["reading"]  # two cells: none


def test_a_reading_says_where_its_interval_lies_against_chance():
    assert [against(ci, GROUP_CHANCE) for ci in ([17.0, 30.0], [10.0, 20.0], [0.0, 16.0], None)] == [
        "above chance", "at chance", "below chance", None]
    assert [correlation_reading(ci) for ci in ([0.1, 0.9], [-0.4, 0.6], [-0.9, -0.2], None)] == [
        "positive", "not supported", "negative", None]
    cell = {"binding_ci": [2.0, 9.5], "increment_ci": [-2.3, 4.7]}  # a sweep cell reads each by its interval
    assert sweep.readings(cell) == {"binding_reading": "below chance", "increment_reading": "at chance"}
    assert sweep.readings({}) == {"binding_reading": None, "increment_reading": None}  # recorded before the reading


@pytest.mark.slow
def test_a_cell_trains_once_is_recorded_and_the_sweep_summarizes_the_recorded_cells(tmp_path, tiny_model,
                                                                                      monkeypatch):
    budget = {"model": tiny_model, "steps": 2, "batch_size": 8, "lr": 1e-3, "warmup": 1, "weight_decay": 0.1,
              "precision": "fp32"}
    records, runs = tmp_path / "records", tmp_path / "runs"
    probes = sweep.binding.composition_probes
    monkeypatch.setattr(sweep.binding, "composition_probes",
                        lambda table, **kw: probes(table, widths=(16,), **kw))  # quicker
    # the probes' fits were 116 s of this test's 121: the record's shape is what it checks, not how well they fit
    quick_probes(monkeypatch, steps=30)
    cells = [sweep.Cell("8x4", 0.5), sweep.Cell("8x4", 0.75), sweep.Cell("12x6", 0.5)]
    threads = []
    monkeypatch.setattr(torch, "set_num_threads", threads.append)  # seen, not applied to the rest of the suite
    made = [sweep.run_cell(cell, budget, runs, records, n_items=20, threads=1, binding_items=6) for cell in cells]
    assert threads == [1, 1, 1]  # each cell's training ran at the sweep's thread count
    for cell, record in zip(cells, made):
        assert record["config"]["object_space"] == cell.space and record["config"]["steps"] == 2
        assert record["config"]["threads"] == 1
        assert 0 <= record["heldout_ci"][0] <= record["heldout_top1"] <= record["heldout_ci"][1] <= 100
        assert {"product_fit", "additive_fit", "mlp_fit", "product_swaps", "swap_cosine"} <= record.keys()
        assert record["binding_ci"][0] <= record["binding_group"] <= record["binding_ci"][1]  # held-out swaps
        assert 0 <= record["sgi_group"] <= 100 and record["binding_items"] == 6
        low, high = record["increment_ci"]  # what the product adds to the additive probe, on the same scenes
        assert low <= record["increment"] <= high and record["increment"] == pytest.approx(
            record["joint_fit"] - record["additive_fit"], abs=1e-9)
    (runs / f"{cells[0].name}.safetensors").unlink()  # a recorded cell needs neither weights nor training
    monkeypatch.setattr(sweep, "train", lambda *a, **k: pytest.fail("a recorded cell was trained again"))
    assert sweep.run_cell(cells[0], budget, runs, records, n_items=20) == made[0]

    summary = sweep.write(sweep.summarize(records), tmp_path / "out", "python -m explorer binding-sweep")
    assert [(r["space"], r["coverage"]) for r in summary["rows"]] == [("8x4", 0.5), ("8x4", 0.75), ("12x6", 0.5)]
    assert summary["correlation"]["cells"] == 3 and summary["by_space"]["12x6"]["r"] is None  # one cell: no r
    assert summary["by_probe"]["product"] == summary["correlation"]
    assert set(summary["by_probe"]) == set(summary["binding_by_probe"]) == set(sweep.binding.PROBES)
    assert summary["binding_by_probe"]["product"]["cells"] == 3  # the binding outcome beside recognition
    assert set(summary["increment"]) == {"heldout_top1", "binding_group"}
    assert {r["binding_reading"] for r in summary["rows"]} <= {"above chance", "at chance", "below chance"}
    html = (tmp_path / "out" / "coverage-sweep.html").read_text()
    assert "12x6" in html and "multiplicative fit" in html
    assert (tmp_path / "out" / "coverage-sweep.csv").read_text().splitlines()[0].startswith("space,coverage,seed")

    other = json.loads((records / f"{cells[1].name}.json").read_text())
    other["config"]["steps"] = 4000
    (records / f"{cells[1].name}.json").write_text(json.dumps(other))
    with pytest.raises(ValueError, match="different budgets"):
        sweep.summarize(records)


def test_the_command_summarizes_without_training_and_refuses_a_bad_space(tmp_path):
    done = subprocess.run([sys.executable, "-m", "explorer", "binding-sweep", "--summary-only", "--records",
                           str(tmp_path / "none"), "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["correlation"]["cells"] == 0 and (tmp_path / "coverage-sweep.html").is_file()
    bad = subprocess.run([sys.executable, "-m", "explorer", "binding-sweep", "--spaces", "8x4,banana",
                          "--summary-only"], cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode != 0 and "not 'banana'" in bad.stderr


def test_the_recorded_cells_are_the_rows_of_docs_binding_md():
    """Every committed cell record is a row of docs/binding.md's sweep table, to the digit it prints."""
    doc = (ROOT / "docs" / "binding.md").read_text()
    records = sorted((ROOT / "docs" / "results" / "coverage-sweep").glob("*.json"))
    assert records, "no cell recorded"
    for path in records:
        r = json.loads(path.read_text())
        low, high = r["heldout_ci"]
        row = (f"| {r['space']}, coverage {r['coverage']} | {r['heldout_top1']:.1f} [{low:.1f}, {high:.1f}] | "
               f"{100 / ObjectSpace.parse(r['space']).size:.1f} | "
               f"{r['product_fit']:.1f} / {r['additive_fit']:.1f} / {r['mlp_fit']:.1f} | "
               f"{r['product_swaps']:.1f} / {r['additive_swaps']:.0f} | {r['r2_objects']:.1f} |")
        assert row in doc, row


@pytest.mark.parametrize("records, summary", [("coverage-sweep", "coverage-sweep.json"),
                                              ("coverage-sweep-fp32", "coverage-sweep-fp32/coverage-sweep.json")])
def test_docs_binding_md_quotes_the_summary_of_the_recorded_cells(records, summary):
    """Each budget's summary is that of its committed records, and the page quotes its correlations (those of 3
    cells or more), each with its Fisher interval."""
    written = json.loads((ROOT / "docs" / summary).read_text())
    assert written["rows"] == sweep.summarize(ROOT / "docs" / "results" / records)["rows"]
    doc = (ROOT / "docs" / "binding.md").read_text()
    for probe, found in written["by_probe"].items():
        if found["r"] is not None:
            low, high = found["fisher_ci"]
            assert f"r = {found['r']}" in doc and f"Fisher [{low}, {high}]" in doc, probe


def test_the_fp32_cells_are_the_rows_of_docs_binding_md_with_their_binding_readings():
    """Every committed fp32 cell is a row of docs/binding.md's fp32 table: recognition, the binding outcome and the
    product's increment over the additive probe, each with its interval, and the two binding figures' readings."""
    rows = sweep.summarize(ROOT / "docs" / "results" / "coverage-sweep-fp32")["rows"]
    assert rows, "no fp32 cell recorded"
    doc = (ROOT / "docs" / "binding.md").read_text()
    for r in rows:
        (top_low, top_high), (bind_low, bind_high), (inc_low, inc_high) = (
            r["heldout_ci"], r["binding_ci"], r["increment_ci"])
        row = (f"| {r['space']}, coverage {r['coverage']}, seed {r['seed']} | {r['heldout_top1']:.1f} "
               f"[{top_low:.1f}, {top_high:.1f}] | {r['binding_group']:.1f} [{bind_low:.1f}, {bind_high:.1f}], "
               f"{r['binding_reading']} | {r['sgi_group']:.1f} | {r['increment']:.1f} [{inc_low:.1f}, {inc_high:.1f}], "
               f"{r['increment_reading']} | {r['product_fit']:.1f} / {r['additive_fit']:.1f} / {r['mlp_fit']:.1f} | "
               f"{r['train_s']:.0f} |")
        assert row in doc, row


def test_a_cell_trains_from_scratch_at_the_budget_the_embedded_model_started_from():
    """The embedded model is a chain of warm starts; a sweep cell trains from scratch, so its budget is the recipe of
    the model the chain starts from (the lineage's origin), not the last warm start's shorter, slower schedule."""
    from explorer.models.checkpoints import EMBEDDED_CHECKPOINT

    record = json.loads(EMBEDDED_CHECKPOINT.with_suffix(".json").read_text())
    origin = record["lineage"][0]["config"]
    assert sweep.shipped_budget() == {k: origin[k] for k in sweep.BUDGET_FIELDS}
    assert sweep.shipped_budget()["steps"] != record["config"]["steps"] and "init" not in sweep.shipped_budget()


def test_a_cells_budget_is_the_shipped_recipes_with_what_is_given_in_its_place():
    recipe = sweep.shipped_budget()
    assert sweep.cell_budget() == recipe
    fp32 = sweep.cell_budget(precision="fp32", steps=10)
    assert fp32 == recipe | {"precision": "fp32", "steps": 10} and recipe["precision"] == "bf16"
