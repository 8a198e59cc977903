import numpy as np
import pytest

from explorer.binding import SceneTable, additive_r2, all_pairs, composition_probes, edit_top1, probe_accuracy


def table_from(rule, n_colors=8, n_shapes=3, dim=64, seed=0):
    rng = np.random.default_rng(seed)
    colors, shapes = rng.normal(size=(n_colors, dim)), rng.normal(size=(n_shapes, dim))
    pairs = all_pairs(n_colors, n_shapes)
    emb = np.stack([rule(colors, shapes, p) for p in pairs]) + rng.normal(size=dim) * 3  # an offset, as real models have
    return SceneTable(pairs, emb, n_colors, n_shapes)


def additive(colors, shapes, pair):
    return sum(colors[c] + shapes[s] for c, s in pair)


def multiplicative(colors, shapes, pair, _w=np.random.default_rng(9).normal(size=(64, 64))):
    return _w @ np.prod([colors[c] * shapes[s] for c, s in pair], axis=0)


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


def test_multiplicative_rule_needs_the_product_probe():
    t = table_from(multiplicative)
    assert additive_r2(t)["objects"] < 60
    probes = composition_probes(t, widths=(16,))
    print(probes)
    assert probes["product"] >= 50
    assert probes["product"] > probes["additive"] + 30


def test_binding_cli_reports_the_named_figures(tmp_path):
    import json

    from explorer.cli import main

    out = tmp_path / "b.json"
    assert main(["binding", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    for name in ("r2.objects.image", "r2.concepts.image", "r2.objects.text", "edit.top1.image", "probe.concepts.image",
                 "probe.objects.image", "mlp.heldout_objects.image", "product.heldout_objects.image"):
        assert 0 <= report["figures"][name] <= 100 or name.startswith("r2")
    assert report["model"] == "world-clip (embedded)"


def test_single_edit_and_mds_on_additive_objects():
    from explorer.binding import edit, mds_points

    t = table_from(object_additive)
    result = edit(t, 0, 1, 3)
    assert result.correct and result.target is not None
    observed, recon = mds_points(t)
    assert observed.shape == recon.shape == (24, 3)
