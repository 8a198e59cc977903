"""SugarCrepe, Winoground, BiVLC and ARO on pictures wider than tall, in their published layouts: the default
``eval`` (each picture through the model's own preprocess, which centre-crops) against each official script's scoring
re-implemented line by line, item for item; and the padded whole view, asked for, reading the same pictures
otherwise."""

import json

import numpy as np
import pandas as pd
import pytest
from layout_fixtures import WIDE, aro, bivlc, cosines, sugarcrepe, sugarcrepe_pp, winoground
from PIL import Image
from test_layouts import assert_wino, wino_reference, wino_scores

from explorer.eval.accuracy import evaluate, item_outcomes
from explorer.eval.benchmark_registry import BENCHMARKS, load_items
from explorer.eval.browse import reading_note
from explorer.eval.layouts.aro import SYMMETRIC
from explorer.methods import get_method


@pytest.fixture(scope="module")
def cosine(embedded):
    return get_method("global", embedded)


def verdicts(method, name, data, view=None):
    items = load_items(name, data, view=view)
    return items, [found["global"] for found in item_outcomes([method], items, name)]


def test_sugarcrepe_matches_main_eval_text_retrieval(tmp_path, embedded, cosine):
    root = sugarcrepe(tmp_path / "data")
    items, found = verdicts(cosine, "sugarcrepe", root)
    results = evaluate([cosine], "sugarcrepe", None, data=root)["global"]
    correct = []
    for cat in ("replace_rel", "swap_att"):  # main_eval.py's evaluate: text_retrieval per item, the mean per category
        data_dict = json.loads((root / f"{cat}.json").read_text())
        correct_cnt = 0
        for i, data in data_dict.items():
            image = Image.open(root / "val2017" / data["filename"])
            assert image.size == WIDE
            s = cosines(embedded, [image], [data["caption"], data["negative_caption"]])[:, 0]
            pos_score, neg_score = s
            correct.append(1 if pos_score > neg_score else 0)
            correct_cnt += correct[-1]
        assert results[cat]["accuracy"] == pytest.approx(100 * correct_cnt / len(data_dict), abs=0.005)
    assert [int(o.correct) for o in found] == correct and len(items) == 12


def test_winoground_matches_text_image_and_group_correct(tmp_path, embedded, cosine):
    root = winoground(tmp_path / "winoground")
    _, found = verdicts(cosine, "winoground", root)
    results = evaluate([cosine], "winoground", None, data=root)["global"]
    rows = [json.loads(line) for line in (root / "examples.jsonl").read_text().splitlines()]
    pictures = [[Image.open(root / "images" / f"{r[k]}.png").convert("RGB") for k in ("image_0", "image_1")]
                for r in rows]
    sims = [cosines(embedded, p, [r["caption_0"], r["caption_1"]]) for p, r in zip(pictures, rows)]
    assert_wino(results, [r["tag"] for r in rows], found, wino_reference(wino_scores(sims)))


def test_bivlc_matches_evaluate_bivlc(tmp_path, embedded, cosine):
    table = bivlc(tmp_path / "bivlc")
    _, found = verdicts(cosine, "bivlc", table)
    results = evaluate([cosine], "bivlc", None, data=table)["global"]
    rows = pd.read_csv(table).to_dict("records")
    i2t, t2i, group = [], [], []
    for r in rows:  # CLIP_utils.evaluate_BiVLC: caption 0 / image 0 the positives, 1 the negatives
        s = cosines(embedded, [Image.open(table.parent / r[k]).convert("RGB") for k in ("image", "negative_image")],
                    [r["caption"], r["negative_caption"]])
        s_C0_I0, s_C0_I1, s_C1_I0, s_C1_I1 = s[0, 0], s[0, 1], s[1, 0], s[1, 1]
        i2t.append(bool(s_C0_I0 > s_C1_I0 and s_C1_I1 > s_C0_I1))
        t2i.append(bool(s_C0_I0 > s_C0_I1 and s_C1_I1 > s_C1_I0))
        group.append(i2t[-1] and t2i[-1])
    assert_wino(results, [r["type"] for r in rows], found, (np.array(i2t), np.array(t2i), np.array(group)))


def aro_macro(file, correct_mask: np.ndarray) -> float:
    """The authors' macro accuracy of one ARO file: ``evaluate_scores``'s records (per relation; per attribute pair
    seen 25 times or more), averaged as their notebook does, less the symmetric relations on VG-Relation."""
    dataset = json.loads(file.read_text())
    if "relation_name" in dataset[0]:
        all_relations = np.array([item["relation_name"] for item in dataset])
        records = [{"Relation": r, "Accuracy": correct_mask[all_relations == r].mean()}
                   for r in np.unique(all_relations)]
        df = pd.DataFrame(records)
        df = df[~df.Relation.isin(SYMMETRIC)]
        return float(df.Accuracy.mean())
    all_attributes = np.array([f"{item['attributes'][0]}_{item['attributes'][1]}" for item in dataset])
    records = [{"Attributes": a, "Accuracy": correct_mask[all_attributes == a].mean()}
               for a in np.unique(all_attributes) if (all_attributes == a).sum() >= 25]
    return float(pd.DataFrame(records).Accuracy.mean())


def test_aro_matches_vg_evaluate_scores(tmp_path, embedded, cosine):
    root = aro(tmp_path / "aro")
    _, found = verdicts(cosine, "aro", root)
    results = evaluate([cosine], "aro", None, data=root)["global"]
    correct = []
    for file, kind in (("visual_genome_relation.json", "VG-Relation"),
                       ("visual_genome_attribution.json", "VG-Attribution")):
        mask = []
        for test_case in json.loads((root / file).read_text()):  # VG_Relation.__getitem__: the box, then preprocess
            image = Image.open(root / "images" / test_case["image_path"]).convert("RGB")
            image = image.crop((test_case["bbox_x"], test_case["bbox_y"], test_case["bbox_x"] + test_case["bbox_w"],
                                test_case["bbox_y"] + test_case["bbox_h"]))
            assert image.width != image.height
            scores = cosines(embedded, [image], [test_case["false_caption"], test_case["true_caption"]]).T
            mask.append(bool(np.argmax(scores[0]) == 1))  # evaluate_scores: preds == 1
        assert results[f"{kind} pooled"]["accuracy"] == pytest.approx(100 * np.mean(mask), abs=0.005)
        assert results[kind]["accuracy"] == pytest.approx(100 * aro_macro(root / file, np.array(mask)), abs=0.005)
        correct += mask
    assert [o.correct for o in found] == correct


def test_the_whole_view_asked_for_reads_the_wide_pictures_otherwise(tmp_path, cosine):
    """The fixtures' sides matter: asked for the whole view, the same items are read with other cosines."""
    root = sugarcrepe_pp(tmp_path / "VLMs")
    items, authors = verdicts(cosine, "sugarcrepe-pp", root)
    _, whole = verdicts(cosine, "sugarcrepe-pp", root, view="whole")
    assert {it.info["view"] for it in items} == {"raw"} and BENCHMARKS["sugarcrepe-pp"].reading() == "raw"
    assert BENCHMARKS["sugarcrepe-pp"].reading("whole") == "whole"
    assert sum(a.margin != w.margin for a, w in zip(authors, whole)) > len(items) // 2
    assert "authors' script" in reading_note(items)


def test_the_world_and_own_pairs_keep_the_settings_view(tmp_path):
    world_items = load_items("world", limit=2, split="id")
    assert "view" not in world_items[0].info and reading_note(world_items) == ""
    assert BENCHMARKS["world"].reads is None and BENCHMARKS["pairs"].reads is None
    assert all(BENCHMARKS[n].reads == "raw" for n in ("sugarcrepe", "winoground", "bivlc", "aro", "colorswap",
                                                      "whatsup", "sugarcrepe-pp", "valse", "eqben"))
