"""The binding geometry (``explorer/readings/binding.py``): additive embeddings decompose and cannot tell a swap, the probes see a
binding rule only where one exists, their splits keep training scenes out, and the binding command's figures."""

import numpy as np
import pytest
from conftest import quick_probes

from explorer.readings import DRAWS
from explorer.readings.binding import (
    PROBES, SceneTable, additive_r2, all_pairs, composition_probes, edit_top1, probe_accuracy, readings,
)
from explorer.readings.binding_audit import problems
from explorer.readings.binding_report import FAMILY, read_model
from explorer.readings.significance import holm


def table_from(rule, n_colors=8, n_shapes=3, dim=64, seed=0):
    rng = np.random.default_rng(seed)
    colors, shapes = rng.normal(size=(n_colors, dim)), rng.normal(size=(n_shapes, dim))
    pairs = all_pairs(n_colors, n_shapes)
    emb = np.stack([rule(colors, shapes, p) for p in pairs]) + rng.normal(size=dim) * 3  # an offset, as real models have
    return SceneTable(pairs, emb, n_colors, n_shapes)


def additive(colors, shapes, pair):
    return sum(colors[c] + shapes[s] for c, s in pair)


def bound(colors, shapes, pair, _w=np.random.default_rng(9).normal(size=(64, 64))):
    """Each object's colour bound to its shape (elementwise product), objects summed: a swap changes the scene."""
    return _w @ sum(colors[c] * shapes[s] for c, s in pair)


def object_additive(colors, shapes, pair, _objects=np.random.default_rng(5).normal(size=(8, 3, 64))):
    return sum(_objects[c, s] for c, s in pair)


def test_exactly_additive_embeddings_decompose_and_edit():
    concepts = additive_r2(table_from(additive))
    assert concepts["objects"] == pytest.approx(100, abs=1e-6) and concepts["concepts"] == pytest.approx(100, abs=1e-6)
    objects = table_from(object_additive)  # scenes are sums of distinct object vectors
    assert additive_r2(objects)["objects"] == pytest.approx(100, abs=1e-6)
    assert additive_r2(objects)["concepts"] < 50  # but objects are not colour + shape
    assert edit_top1(objects) == 100


def test_a_bag_of_concepts_cannot_tell_a_swap():
    t = table_from(additive)  # colour + shape: a red square + a blue circle == a blue square + a red circle
    assert edit_top1(t) < 90


def test_additive_embeddings_are_bags_of_concepts_for_probes():
    probes = probe_accuracy(_noisy(additive, 0.0))
    assert probes["concepts"] >= 90  # which colours and shapes are present is linearly readable


@pytest.mark.slow
def test_a_binding_rule_is_seen_by_the_product_probe_and_not_by_the_additive_one(monkeypatch):
    quick_probes(monkeypatch, 200)  # the bound rule's figures are the same at 200 steps as at 600
    t = table_from(bound)
    assert additive_r2(t)["concepts"] < 50  # objects are not colour + shape
    probes = composition_probes(t, widths=(16, 64))
    assert probes["swap.cosine"] < 0.9  # the rule gives swapped scenes different embeddings
    assert probes["swap.product"] >= 90  # every test scene told from its swap, though it holds a held-out object
    assert probes["swap.additive"] == 0  # colour + shape summed over objects is the same for a swap: never apart
    assert probes["product"] > probes["additive"] + 30
    assert probes["product.width"] in (16, 64)


def test_no_probe_can_tell_swaps_a_bag_of_concepts_cannot(monkeypatch):
    quick_probes(monkeypatch)  # a swap's two scenes have one embedding here: no fit, however good, tells them apart
    probes = composition_probes(table_from(additive), widths=(16,))
    assert probes["swap.cosine"] == pytest.approx(1.0)
    assert probes["swap.product"] == probes["swap.mlp"] == probes["swap.additive"] == 0


@pytest.mark.slow  # four probes fitted in every fold, twice
def test_the_increment_a_product_adds_to_the_additive_probe_is_binding_and_nothing_on_a_bag_of_concepts(monkeypatch):
    """The sweep's multiplicative measure: the additive probe with a product beside it, minus the additive alone, on
    the same held-out scenes. A binding rule gives a large increment, clear of 0; colour + shape gives none."""
    quick_probes(monkeypatch, 200)  # the bound rule's increment is the same at 200 steps as at 600
    bound_gain = composition_probes(table_from(bound), widths=(16,), joint=True)
    monkeypatch.undo()  # the bag's joint probe needs the full 600 (at 300 it underfits: increment -35)
    assert bound_gain["increment"] > 30 and bound_gain["increment_ci"][0] > 0 and bound_gain["joint_swaps"] >= 50
    bag = composition_probes(_noisy(additive, 0.05), widths=(16,), joint=True)
    low, high = bag["increment_ci"]
    assert low <= 0 <= high and abs(bag["increment"]) <= 10 and bag["increment"] < bound_gain["increment"] - 25


def test_probe_splits_keep_training_scenes_out_of_validation_and_test():
    from explorer.readings.binding import probe_splits

    t = table_from(additive)
    train, val, test = probe_splits(t)
    assert not (set(train) & set(val)) and not (set(train) & set(test)) and not (set(val) & set(test))
    assert len(train) + len(val) + len(test) == len(t.pairs) and abs(len(val) - len(test)) <= 1


def test_the_slot_mlp_is_order_free_over_objects():
    import torch

    from explorer.models.modeling.probes import SlotMLP

    mlp = SlotMLP(8, 3, 16, 5)
    idx = torch.tensor([[[1, 2], [4, 0]]])
    assert torch.allclose(mlp(idx), mlp(idx.flip(1)))
    assert not torch.allclose(mlp(idx), mlp(torch.tensor([[[1, 0], [4, 2]]])))  # the swap: a different input


def test_binding_cli_figures_are_a_recomputation_and_carry_their_nulls(tmp_path, embedded, monkeypatch):
    import json

    from explorer.cli import main
    from explorer.readings.binding import world_tables
    from explorer.readings.binding_swaps import swap_renders

    quick_probes(monkeypatch)
    out = tmp_path / "b.json"
    assert main(["binding", "--json", str(out), "--colors", "4", "--shapes", "2", "--null-draws", "4",
                 "--renders", "2", "--widths", "16", "--no-check"]) == 0
    report = json.loads(out.read_text())
    assert report["model"] == "world-clip (embedded)"
    assert report["command"] == (f"python -m explorer binding --json {out} --colors 4 --shapes 2 --null-draws 4 "
                                 "--renders 2 --widths 16 --no-check")
    figures = report["figures"]
    tables, swaps = world_tables(embedded, 4, 2), swap_renders(embedded, 4, 2, 2)
    for kind, table in tables.items():
        again = readings(table) | {f"{k}.heldout_objects": v for k, v in
                                   composition_probes(table, widths=(16,), swaps=swaps[kind]).items()}
        null = report["null"][kind]
        for name, value in again.items():
            if ".width" in name:
                assert null["widths"][name.split(".")[0]] == value
            elif name.startswith("swap.cosine"):
                assert null["swap_cosine"] == pytest.approx(value, abs=1e-4)
            elif name.startswith("swap.") and kind == "text":  # a pair's distinct caption orders averaged in it
                entry = figures[f"{name}.{kind}"]["null"]
                assert entry["unit"] == "pairs" and entry["units"] == null["units"] == 6
                assert sum(entry["per_pair"]["caption pairs"]) == null["distinct"]["caption pairs"] <= 12
            else:
                assert figures[f"{name}.{kind}"]["value"] == pytest.approx(value, abs=0.01), (name, kind)
        assert null["draws"] == 4 and null["pairs"] == 6 and null["renders"] == 2
    assert len(figures) == report["null"]["tests"] == 22  # 11 readings of each kind, all with a null
    tests = {name: entry for name, entry in figures.items() if entry["null"]["p"] is not None}
    assert len(tests) == report["null"]["family"] and all(e["reading"] == "not tested" for n, e in figures.items()
                                                          if n not in tests)
    assert holm({name: e["null"]["p"] for name, e in tests.items()}) == \
        {name: e["null"]["p_adjusted"] for name, e in tests.items()}
    for name, entry in tests.items():
        null = entry["null"]
        assert null["p"] <= null["p_adjusted"] and entry["reading"] == \
            ("above chance" if null["p_adjusted"] <= 0.05 else "below chance" if entry["value"] < null["range"][0]
             else "at chance"), name
        if name.startswith("swap."):  # the exact sign-flip test over pairs, from each pair's counts it records
            counts = null["per_pair"]
            assert null["units"] == len(counts["apart"]) == 6 and null["apart"] + null["reversed"] <= 6
            renders = np.array(counts["renders" if name.endswith("image") else "caption pairs"])
            assert entry["value"] == pytest.approx(100 * np.mean(np.array(counts["apart"]) / renders), abs=0.01)
        else:  # the Monte-Carlo p, from the draws it records
            values = np.array(null["values"])
            assert len(values) <= 4 and null["mean"] == pytest.approx(values.mean(), abs=0.01)
            k = int((values >= null["observed"] - 1e-6).sum())
            assert null["p"] == pytest.approx(k / len(values) if "sequential" in null["test"]
                                              else (k + 1) / (len(values) + 1), rel=1e-3)
    assert problems(report) == []  # every p, count, unit and family recomputes from what the record stores
    assert figures["swap.additive.heldout_objects.image"]["interval"] == [0, 0]
    assert figures["swap.additive.heldout_objects.image"]["reading"] == "not tested"  # blind to swaps: none decided


def test_single_edit_and_mds_on_additive_objects():
    from explorer.readings.binding import edit, mds_points

    t = table_from(object_additive)
    result = edit(t, 0, 1, 3)
    assert result.correct and result.target is not None
    observed, recon = mds_points(t)
    assert observed.shape == recon.shape == (24, 3)


def test_readings_gather_each_analysis_under_its_name():
    t = table_from(object_additive)
    found = readings(t)
    assert list(found) == ["r2.objects", "r2.concepts", "edit.top1", "probe.concepts", "probe.objects"]
    assert found["edit.top1"] == edit_top1(t) and found["r2.concepts"] == additive_r2(t)["concepts"]
    assert found["probe.objects"] == probe_accuracy(t)["objects"]


def test_a_model_reading_is_what_the_binding_tab_draws(embedded):
    stages = []
    found = read_model(embedded, 4, 2, lambda done, total, what: stages.append((done, total)))
    assert set(found.tables) == set(found.readings) == {"image", "text"} and stages[-1] == (2, 3)
    for kind, table in found.tables.items():
        entries = found.readings[kind]
        assert {name: e["value"] for name, e in entries.items()} == pytest.approx(readings(table), abs=0.01)
        assert all(e["null"]["draws"] == DRAWS and len(e["null"]["values"]) == DRAWS for e in entries.values())
        tested = [e for e in entries.values() if e["null"]["p"] is not None]
        for e in tested:  # Holm within 22: at least p, at most 22 p
            assert min(1.0, e["null"]["p"] * FAMILY) * 1.001 >= e["null"]["p_adjusted"] >= e["null"]["p"]
        assert all(e["null"]["family"] == FAMILY for e in tested)  # adjusted as members of the command's family
    assert found.observed.shape == found.reconstructed.shape == (8, 3) and len(found.labels) == 8


def _noisy(rule, noise, seed=3):
    """A rule's table plus per-scene noise, each scene's embedding then of unit length (as an encoder's are)."""
    t = table_from(rule)
    emb = t.embeddings + noise * np.random.default_rng(seed).normal(size=t.embeddings.shape)
    return SceneTable(t.pairs, emb / np.linalg.norm(emb, axis=1, keepdims=True), t.n_colors, t.n_shapes)


def _bound_in(colors, shapes, pair):
    """A bag of concepts plus a binding term (each object's colour times its shape, through a fixed map): swapped
    scenes keep a cosine of about 0.5."""
    return additive(colors, shapes, pair) + 0.3 * bound(colors, shapes, pair)


@pytest.mark.slow
def test_a_bag_of_concepts_scores_within_its_null(monkeypatch):
    from explorer.readings.binding_null import measured
    from explorer.readings.significance import adjusted

    quick_probes(monkeypatch, 200)
    found, info = measured(_noisy(additive, 1.0), draws=500, widths=(16,))
    assert 0.8 < info["swap_cosine"] < 0.99
    for name, entry in adjusted(found).items():
        assert entry["reading"] != "above chance", (name, entry)


@pytest.mark.slow
def test_a_binding_term_exceeds_its_null(monkeypatch):
    from explorer.readings.binding_null import measured
    from explorer.readings.significance import adjusted

    quick_probes(monkeypatch, 200)
    found = adjusted(measured(_noisy(_bound_in, 1.0), draws=500, widths=(16,))[0])
    assert found["swap.product.heldout_objects"]["null"]["p_adjusted"] < 0.001
    for name in ("swap.product.heldout_objects", "edit.top1", "r2.objects"):
        entry = found[name]
        assert entry["reading"] == "above chance" and entry["null"].get("at_or_above", 0) == 0, (name, entry)
    swaps = found["swap.product.heldout_objects"]
    assert swaps["interval"][0] > swaps["null"]["range"][1]  # the whole interval clear of chance
    assert found["swap.additive.heldout_objects"]["value"] == 0  # blind to swaps, whatever the data


def test_flipped_tables_exchange_swap_partners_and_nothing_else():
    from explorer.readings.binding_null import flipped

    t = _noisy(_bound_in, 1.0)
    rows = _swap_rows(t)
    partner = {a: b for a, b in rows} | {b: a for a, b in rows}
    copies = flipped(t, draws=6)
    moved = []
    for copy in copies:
        for i, row in enumerate(copy.embeddings):
            source = next(j for j in (i, partner.get(i, i)) if np.array_equal(row, t.embeddings[j]))
            assert source == i or i in partner
        moved.append(np.mean([not np.array_equal(copy.embeddings[a], t.embeddings[a]) for a, _ in rows]))
    assert 0.25 < np.mean(moved) < 0.75  # each pair exchanged with probability 1/2
    assert all(np.array_equal(a.embeddings, b.embeddings) for a, b in zip(copies, flipped(t, draws=6)))  # seeded


def _swap_rows(t):
    from explorer.readings.binding_swaps import table_swaps

    return table_swaps(t.pairs, t.embeddings, t.n_colors, t.n_shapes).rows


def test_every_swap_pair_is_judged_once_by_probes_that_saw_neither_of_its_scenes():
    from explorer.readings.binding_swaps import fold_plan, grid_swaps, object_folds

    pairs, swaps = all_pairs(8, 3), grid_swaps(8, 3)
    folds = object_folds(8, 3)
    assert len(swaps) == 84 and sorted(o for f in folds for o in f) == sorted(set(o for p in pairs for o in p))
    plan = fold_plan(pairs, swaps, folds)
    judged = np.concatenate([j for _, j in plan])
    assert sorted(judged) == list(range(84))  # each pair judged once
    for fold, (train, mine) in zip(folds, plan):
        seen = {frozenset(pairs[i]) for i in train}
        for p in mine:
            a, b = swaps[p]
            assert frozenset(a) not in seen and frozenset(b) not in seen and fold & (set(a) | set(b))
        assert not any(fold & set(pairs[i]) for i in train)
        assert {o[0] for i in train for o in pairs[i]} == set(range(8))  # every colour and shape trained on
        assert {o[1] for i in train for o in pairs[i]} == set(range(3))
        assert len(train) > 120


def test_a_pair_is_told_apart_when_each_side_is_nearer_its_own_prediction():
    from explorer.readings.binding_swaps import told_apart

    e = np.eye(4)
    pred = np.stack([e[0], e[1]])[None]  # one pair, side 0 predicted at e0, side 1 at e1
    renders = np.stack([np.stack([e[0], e[1]]), np.stack([e[0] + e[2], e[0] + 0.1 * e[1]]),
                        np.stack([e[1], e[0]])])[None]  # told apart, one side wrong, both sides swapped
    assert told_apart(pred, renders)[0] == pytest.approx(1 / 3)
    assert told_apart(np.stack([e[0], e[0]])[None], renders)[0] == 0  # one prediction for both sides: never


def test_fitted_copies_train_as_each_would_alone():
    import torch

    from explorer.models.modeling.probes import ConceptProbe, fit_copies

    x = torch.randint(0, 3, (40, 2, 2))
    ys = torch.randn(3, 40, 8)
    torch.manual_seed(0)
    start = ConceptProbe(3, 3, 4, 8, "product", copies=3).state_dict()
    together = fit_copies(lambda k: ConceptProbe(3, 3, 4, 8, "product", copies=k), x, ys, steps=50)(x)

    def copy(b):
        def make(k):
            probe = ConceptProbe(3, 3, 4, 8, "product", copies=1)
            probe.load_state_dict({name: value[b:b + 1] for name, value in start.items()})
            return probe
        return make

    for b in range(3):
        alone = fit_copies(copy(b), x, ys[b:b + 1], steps=50)(x)
        assert torch.allclose(alone[0], together[b], atol=1e-5)
    assert not torch.allclose(together[0], together[1])


def test_the_linear_probes_are_scikit_learns_ridge_classifiers():
    from sklearn.linear_model import RidgeClassifier

    from explorer.readings.binding import ridge_scores

    rng = np.random.default_rng(0)
    x, test = rng.normal(size=(2, 60, 10)), rng.normal(size=(2, 20, 10))
    y = (rng.random((60, 3)) < 0.4).astype(float)
    scores = ridge_scores(x, y, test)
    for b in range(2):
        for j in range(3):
            reference = RidgeClassifier(alpha=1.0).fit(x[b], y[:, j]).decision_function(test[b])
            assert np.abs(scores[b, :, j] - reference).max() < 1e-8


def test_docs_binding_md_shows_the_records_figures_beside_their_nulls():
    """docs/binding.md's table is the committed record's (docs/results/binding-embedded.json), to the digit, and each
    adjusted p follows from the recorded p-values."""
    import json
    from pathlib import Path

    from explorer.readings.binding_report import markdown

    root = Path(__file__).resolve().parents[2]
    report = json.loads((root / "docs" / "results" / "binding-embedded.json").read_text())
    assert report["command"].startswith("python scripts/binding_check_seeds.py docs/results/binding-embedded-seed0.json")
    assert report["command"].endswith("--json docs/results/binding-embedded.json")
    assert all(c.startswith("python -m explorer binding --no-check --render-seed")
               for c in report["null"]["checked"]["commands"])
    assert markdown(report) in (root / "docs" / "binding.md").read_text()
    tests = {name: e for name, e in report["figures"].items() if e["null"]["p"] is not None}
    assert holm({name: e["null"]["p"] for name, e in tests.items()}) == \
        {name: e["null"]["p_adjusted"] for name, e in tests.items()}


def test_a_probes_null_fits_every_copy_as_the_models_own_fit(monkeypatch):
    """Each flipped table's probe starts from the model's own weights, so a 'flipped' table that flips nothing reads
    exactly the model's figure (the statistic is the same function of the table); drawing stops at ``STOP``."""
    from explorer.readings import STOP
    from explorer.readings.binding import probe_outcomes
    from explorer.readings.binding_null import probe_null

    quick_probes(monkeypatch, 30)
    t = _noisy(_bound_in, 1.0)
    (model,), _ = probe_outcomes([t], None, {"product": 16}, probes={"product": PROBES["product"]})
    unflipped = np.tile(np.arange(len(t.pairs)), (60, 1))
    values, stopped = probe_null(t, "product", 16, model["product"], unflipped)
    assert stopped and len(values) == STOP and values == [model["product"]] * STOP
