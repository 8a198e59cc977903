import numpy as np
import pytest

from explorer.binding import (
    SceneTable, additive_r2, all_pairs, composition_probes, edit_top1, probe_accuracy, read_model, readings,
)


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
    probes = probe_accuracy(table_from(additive))
    assert probes["concepts"] >= 90  # which colours and shapes are present is linearly readable


def test_a_binding_rule_is_seen_by_the_product_probe_and_not_by_the_additive_one():
    t = table_from(bound)
    assert additive_r2(t)["concepts"] < 50  # objects are not colour + shape
    probes = composition_probes(t, widths=(16, 64))
    assert probes["swap.cosine"] < 0.9  # the rule gives swapped scenes different embeddings
    assert probes["swap.product"] >= 90  # every test scene told from its swap, though it holds a held-out object
    assert probes["swap.additive"] == 0  # colour + shape summed over objects is the same for a swap: never apart
    assert probes["product"] > probes["additive"] + 30
    assert probes["product.width"] in (16, 64)


def test_no_probe_can_tell_swaps_a_bag_of_concepts_cannot():
    probes = composition_probes(table_from(additive), widths=(16,))
    assert probes["swap.cosine"] == pytest.approx(1.0)
    assert probes["swap.product"] == probes["swap.mlp"] == probes["swap.additive"] == 0


def test_probe_splits_keep_training_scenes_out_of_validation_and_test():
    from explorer.binding import probe_splits

    t = table_from(additive)
    train, val, test = probe_splits(t)
    assert not (set(train) & set(val)) and not (set(train) & set(test)) and not (set(val) & set(test))
    assert len(train) + len(val) + len(test) == len(t.pairs) and abs(len(val) - len(test)) <= 1


def test_the_slot_mlp_is_order_free_over_objects():
    import torch

    from explorer.modeling.probes import SlotMLP

    mlp = SlotMLP(8, 3, 16, 5)
    idx = torch.tensor([[[1, 2], [4, 0]]])
    assert torch.allclose(mlp(idx), mlp(idx.flip(1)))
    assert not torch.allclose(mlp(idx), mlp(torch.tensor([[[1, 0], [4, 2]]])))  # the swap: a different input


def test_binding_cli_reports_the_named_figures(tmp_path):
    import json

    from explorer.cli import main

    out = tmp_path / "b.json"
    assert main(["binding", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    figures = report["figures"]
    for name in ("r2.objects.image", "r2.concepts.image", "r2.objects.text"):
        assert figures[name] <= 100  # a coefficient of determination: negative when worse than the mean
    for name in ("edit.top1.image", "probe.concepts.image", "probe.objects.image", "mlp.heldout_objects.image",
                 "product.heldout_objects.image", "additive.heldout_objects.image", "swap.product.heldout_objects.image",
                 "swap.additive.heldout_objects.image"):
        assert 0 <= figures[name] <= 100, name
    assert figures["swap.additive.heldout_objects.image"] == 0 and -1 <= figures["swap.cosine.heldout_objects.image"] <= 1
    assert report["model"] == "world-clip (embedded)"


def test_single_edit_and_mds_on_additive_objects():
    from explorer.binding import edit, mds_points

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
    assert found.observed.shape == found.reconstructed.shape == (8, 3) and len(found.labels) == 8
