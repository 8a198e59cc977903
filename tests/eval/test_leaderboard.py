"""``eval --models``: every model on the same items of each benchmark, one table of headline figures and each
model's paired difference from the first, checked against verdicts recomputed from each model's embeddings."""

import json
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from explorer.cli import main
from explorer.eval.compare import mcnemar_p
from explorer.eval.leaderboard import figure, paired_cells
from explorer.world import published_minimal

MODELS = ("world-clip", "world-clip-finetune", "world-clip-powerclip")


def _group_hits(name: str, limit: int) -> list[bool]:
    """Each world-vismin item's group verdict under the model's global cosine, from its embeddings."""
    from explorer.models.loader import EncoderSpec, load_encoder

    encoder = load_encoder(EncoderSpec(checkpoint=name))
    hits = []
    for item in published_minimal.vismin_items("id", limit):
        images = encoder.embed_images(item.pictures(encoder.image_size)).numpy()
        s = encoder.embed_texts(list(item.captions)).numpy() @ images.T
        hits.append(bool(s[0, 0] > s[1, 0] and s[1, 1] > s[0, 1] and s[0, 0] > s[0, 1] and s[1, 1] > s[1, 0]))
    return hits


def test_eval_models_writes_the_table_and_the_paired_differences(tmp_path):
    path = tmp_path / "board.json"
    assert main(["eval", "--models", ",".join(MODELS), "--benchmark", "world-vismin", "--split", "id", "--limit", "3",
                 "--json", str(path)]) == 0
    report = json.loads(path.read_text())
    hits = {name: np.array(_group_hits(name, 3)) for name in MODELS}
    table = {row["model"]: row for row in report["table"]}
    assert list(table) == list(MODELS)
    for name, row in table.items():
        assert (row["benchmark"], row["split"], row["score"], row["n"]) == ("world-vismin", "id", "group", 12)
        assert row["value"] == pytest.approx(100 * hits[name].mean(), abs=0.005) and row["low"] <= row["value"]
    paired = {row["model"]: row for row in report["paired_rows"]}
    assert list(paired) == list(MODELS[1:])
    first = hits[MODELS[0]]
    for name, row in paired.items():
        fixes, breaks = int((hits[name] & ~first).sum()), int((first & ~hits[name]).sum())
        assert (row["against"], row["fixes"], row["breaks"]) == (MODELS[0], fixes, breaks)
        assert row["diff"] == pytest.approx(100 * (hits[name].mean() - first.mean()), abs=0.01)
        assert row["mcnemar_p"] == pytest.approx(mcnemar_p(fixes, breaks), rel=1e-3) and "mcnemar_p_holm" in row
    assert len(pd.read_csv(tmp_path / "board.csv")) == 3 and len(pd.read_csv(tmp_path / "board-paired.csv")) == 2
    page = (tmp_path / "board.html").read_text()
    assert all(name in page for name in MODELS) and "McNemar" in page and "world-vismin id global" in page


def test_the_paired_difference_is_on_the_benchmark_s_figure():
    """MMVP's figure is the image score: an item right by image but wrong by group counts right."""
    right_by_image = SimpleNamespace(image=True, correct=False)
    wrong = SimpleNamespace(image=False, correct=False)
    cells = paired_cells("mmvp-vlm", ["global"], ["a", "a"], [{"global": wrong}] * 2,
                         [{"global": right_by_image}, {"global": wrong}])
    assert (cells["global"]["all"]["fixes"], cells["global"]["all"]["diff"]) == (1, 50.0)
    assert figure("mmvp-vlm", {"group": 1}) == "image" and figure("vismin", {"group": 1}) == "group"
    assert figure("spec", {"accuracy": 1}) == "accuracy"
    assert paired_cells("vismin", ["global"], ["a"], [{"global": wrong}], [{"global": right_by_image}])[
        "global"]["all"]["fixes"] == 0


def test_eval_models_needs_two_models():
    with pytest.raises(SystemExit, match="two models or more"):
        main(["eval", "--models", "world-clip", "--benchmark", "world-vismin"])


def test_aro_s_leaderboard_shows_each_subset_s_macro_accuracy_as_its_authors_report_it(tmp_path):
    """ARO's authors report VG-Relation's and VG-Attribution's macro accuracy, never one figure over both: the
    leaderboard has a row per subset holding that subset's macro cell, and no pooled "all" row."""
    from layout_fixtures import aro

    root = aro(tmp_path / "aro")
    path = tmp_path / "aro.json"
    assert main(["eval", "--models", "world-clip,world-clip-finetune", "--benchmark", "aro", "--data", str(root),
                 "--methods", "global", "--json", str(path)]) == 0
    report = json.loads(path.read_text())
    rows = [(r["model"], r["kind"], r["score"], r["value"], r["n"]) for r in report["table"]]
    expected = []
    for model in ("world-clip", "world-clip-finetune"):
        cells = report["results"][model]["aro"]["global"]
        for kind in ("VG-Relation", "VG-Attribution"):
            expected.append((model, kind, "accuracy", cells[kind]["accuracy"], cells[kind]["n"]))
    assert rows == expected
    macro_off_pooled = [report["results"][m]["aro"]["global"][k]["accuracy"] !=
                        report["results"][m]["aro"]["global"][f"{k} pooled"]["accuracy"] for m, k, *_ in rows]
    assert any(macro_off_pooled)  # the fixture tells the macro figure from the pooled one
    assert [(r["model"], r["kind"]) for r in report["paired_rows"]] == [
        ("world-clip-finetune", "VG-Relation"), ("world-clip-finetune", "VG-Attribution")]
    page = (tmp_path / "aro.html").read_text()
    assert "aro VG-Relation global" in page and "aro VG-Attribution global" in page


def test_spec_s_headline_is_its_two_directions_side_by_side():
    """SPEC's paper reports the image-to-text and text-to-image means, never one figure over both."""
    from explorer.eval.leaderboard import table_rows

    def cell(v):
        return {"accuracy": v, "n": 4, "ci": {"accuracy": [v - 1, v + 1]}}

    cells = {"count i2t": cell(50.0), "count t2i": cell(25.0), "i2t": cell(50.0), "t2i": cell(25.0)}
    for name, results, split in (("spec", {"global": cells}, ""), ("world-spec", {"global": {"id": cells}}, "id")):
        rows = table_rows("m", name, results)
        assert [(r["split"], r["kind"], r["value"], r["low"]) for r in rows] == [(split, "i2t", 50.0, 49.0),
                                                                                 (split, "t2i", 25.0, 24.0)]
