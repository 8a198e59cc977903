"""scripts/legrad_reference.py: the project's LeGrad equals the authors' code on the committed records (r >= 0.99 on
both class-token ViTs, and for the attention-pool variant on SigLIP's tower), the plain-block world-clip the authors'
open_clip builds is the shipped model, and the docs' LeGrad tables are the committed records'."""

import json
import runpy
from pathlib import Path

import open_clip
import pytest
import torch

ROOT = Path(__file__).parents[2]
RESULTS = ROOT / "docs" / "results"


@pytest.fixture(scope="module")
def script():
    return runpy.run_path(str(ROOT / "scripts" / "legrad_reference.py"), run_name="legrad_reference")


def test_the_record_says_the_maps_are_the_authors(script):
    record = json.loads((RESULTS / "explanations" / "legrad-reference.json").read_text())
    assert record["command"].startswith("python scripts/legrad_reference.py --items ")
    assert record["figures"]["authors"]["open_clip"].startswith("2.23")
    models = record["figures"]["models"]
    assert len(models) == 2 and any(label.startswith("ViT-B-32 (random") for label in models)
    for label, found in models.items():
        assert found["image_feature_gap"] < 1e-4, label  # the two environments run the same model
        for scope in ("captions", "segments"):
            assert found[scope]["r"] >= 0.99 and found[scope]["maps"] >= 2 * found[scope]["items"] > 0, label
    assert script["markdown"](record) in (ROOT / "docs" / "explanations.md").read_text()


def test_the_siglip_record_says_the_pool_variant_is_the_authors(script):
    """Their ``compute_legrad_siglip`` (its correction on) against the project's LeGrad on ViT-B-16-SigLIP's image
    tower with random weights: every map's r and peak, on captions and segments."""
    record = json.loads((RESULTS / "explanations" / "legrad-siglip-reference.json").read_text())
    assert record["command"].startswith("python scripts/legrad_reference.py --tower siglip --items ")
    assert record["figures"]["authors"]["open_clip"].startswith("2.23") and record["layer_index"] == -2
    (label, found), = record["figures"]["models"].items()
    assert label.startswith("ViT-B-16-SigLIP image tower (random") and found["image_blocks"] == 12
    assert found["authors_function"] == "compute_legrad_siglip" and found["image_feature_gap"] < 1e-4
    for scope in ("captions", "segments"):
        assert found[scope]["r"] >= 0.99 and found[scope]["r_min"] >= 0.99, scope
        assert found[scope]["argmax_agreement"] >= 99 and found[scope]["maps_without_r"] == 0, scope
        assert found[scope]["maps"] >= 2 * found[scope]["items"] >= 20, scope
    assert script["markdown"](record) in (ROOT / "docs" / "explanations.md").read_text()
    assert script["pooled_config"]()["vision_cfg"] == open_clip.get_model_config("ViT-B-16-SigLIP")["vision_cfg"]


def test_the_plain_block_world_clip_is_the_shipped_one(script, embedded, tmp_path):
    """The config the authors' environment builds world-clip from (no ``block_type``) holds the shipped weights
    strictly and computes the same image features with open_clip's plain blocks."""
    config = script["plain_config"]()
    (tmp_path / "world-clip-plain-test.json").write_text(json.dumps(config))
    open_clip.add_model_config(tmp_path)
    plain = open_clip.create_model("world-clip-plain-test")
    plain.load_state_dict(embedded.model.state_dict(), strict=True)
    pixels = torch.randn(2, 3, 128, 128)
    with torch.no_grad():
        assert torch.allclose(plain.eval().encode_image(pixels), embedded.model.encode_image(pixels), atol=1e-5)


def test_identical_maps_read_r_one_and_a_constant_map_reads_no_r(script):
    maps = [torch.rand(3, 64)]
    flat = [torch.cat([maps[0][:2], torch.zeros(1, 64)])]
    summary = script["summarize"](script["readings"](maps, flat))
    assert summary["r"] == pytest.approx(1) and summary["maps"] == 3 and summary["maps_without_r"] == 1


def test_the_legrad_pointing_tables_are_the_record():
    from scripts.doc_tables import pointing_tables

    report = json.loads((RESULTS / "pointing-legrad.json").read_text())
    assert {"legrad", "rollout", "grad-eclip", "random"} <= set(report["results"]) and "legrad" in report["sanity"][
        "explainers"]
    assert report["command"].startswith("python -m explorer pointing ") and "--sources legrad" in report["command"]
    assert pointing_tables(report) in (ROOT / "docs" / "explanations.md").read_text()


def test_legrads_default_layers_are_the_ones_that_point_best_on_val():
    """The val record of each layer_index: the page's default (every block) is the one whose peak lies on the named
    object most often, over both val splits; the docs show the record's table."""
    from explorer.explain.legrad import LAYER_INDEX

    record = json.loads((RESULTS / "explanations" / "legrad-layers.json").read_text())
    assert record["splits"] == ["val-id", "val-heldout"] and record["command"].startswith("python scripts/legrad_")
    settings = {int(k): v for k, v in record["figures"].items() if k != "random"}
    best = max(settings, key=lambda k: sum(settings[k][s]["pointing"] for s in record["splits"]))
    assert best == -len(settings) and LAYER_INDEX == 0  # -depth and 0 both read every block
    table = runpy.run_path(str(ROOT / "scripts" / "legrad_layers.py"), run_name="legrad_layers")["markdown"](record)
    assert table in (ROOT / "docs" / "explanations.md").read_text()
