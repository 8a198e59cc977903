"""VisMin, MMVP-VLM and SPEC read from tiny copies in their published layouts and scored by the project (the embedded
model's global cosine), item for item and per kind against their authors' metric code re-implemented line by line on
the same cosines; and their malformed files named by file and row."""

import csv
import io
import json
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
import torch
from layout_fixtures import cosines
from minimal_pair_fixtures import MMVP_PATTERNS, mmvp, spec, vismin
from PIL import Image
from test_layouts import cosine, verdicts  # noqa: F401 (a fixture)

from explorer.eval.accuracy import evaluate
from explorer.eval.benchmark_registry import BENCHMARKS, load_items
from explorer.eval.dataset_loaders import DatasetError


def evaluate_relation(pred1, pred2, operator):
    """vismin-bench/metric.py, as written."""
    if operator == ">":
        return pred1 > pred2
    elif operator == "<":
        return pred1 < pred2
    elif operator == "=":
        return pred1 == pred2
    raise ValueError(f"Invalid operator: {operator}")


def compute_contrastive_accuracy(contrastive_scores: list, ground_truth: list):
    """vismin-bench/metric.py's ``compute_contrastive_accuracy``, its counts and percentages; each item's three
    verdicts kept beside them for the item-for-item check."""
    category_correct_count = defaultdict(lambda: {"text": 0, "image": 0, "group": 0, "count": 0})
    verdicts = []
    for pred_dict, gt in zip(contrastive_scores, ground_truth):
        category = gt["category"]
        text_relations = gt["Text"].split(" & ")
        image_relations = gt["Image"].split(" & ")
        text_correct = all(evaluate_relation(pred_dict[r.split(" ")[0]], pred_dict[r.split(" ")[2]], r.split(" ")[1])
                           for r in text_relations)
        image_correct = all(evaluate_relation(pred_dict[r.split(" ")[0]], pred_dict[r.split(" ")[2]], r.split(" ")[1])
                            for r in image_relations)
        category_correct_count[category]["text"] += text_correct
        category_correct_count[category]["image"] += image_correct
        category_correct_count[category]["group"] += text_correct and image_correct
        category_correct_count[category]["count"] += 1
        verdicts.append((text_correct, image_correct, text_correct and image_correct))
    full = {}
    for category, c in category_correct_count.items():
        full[category] = {k: round(c[k] * 100 / c["count"], 2) for k in ("text", "image", "group")}
        full[category]["count"] = c["count"]
    return full, verdicts


def test_vismin_matches_its_contrastive_accuracy(tmp_path, embedded, cosine):
    root = vismin(tmp_path / "vismin-bench")
    items, found = verdicts(cosine, "vismin", root)
    frame = pd.read_parquet(root / "data" / "test-00000-of-00001.parquet")
    predictions = []
    for _, sample in frame.iterrows():  # the authors' eval.py: T0_I0, T0_I1, T1_I0, T1_I1
        s = cosines(embedded, [Image.open(io.BytesIO(sample[k]["bytes"])).convert("RGB")
                               for k in ("image_0", "image_1")], [sample["text_0"], sample["text_1"]])
        predictions.append({"idx": sample["id"], "T0_I0": s[0, 0], "T0_I1": s[0, 1], "T1_I0": s[1, 0],
                            "T1_I1": s[1, 1], "category": sample["category"]})
    truth = pd.read_csv(root / "solutions" / "sim_solution.csv").to_dict(orient="records")
    reference, each = compute_contrastive_accuracy(predictions, truth)
    assert [(o.text, o.image, o.correct) for o in found] == each
    results = evaluate([cosine], "vismin", None, data=root)["global"]
    for category, cell in reference.items():
        assert {k: results[category][k] for k in ("text", "image", "group")} == \
            pytest.approx({k: cell[k] for k in ("text", "image", "group")}, abs=0.005)
        assert results[category]["n"] == cell["count"]
    assert [it.right for it in items[:2]] == [(0, 1), (1, 0)]  # the key's pairing, not the row's order
    flat = [v for o in found for v in (o.text, o.image)]
    assert 0 < sum(flat) < len(flat)  # the comparison holds on both sides of the verdicts


def test_vismin_without_its_answer_key_says_where_to_get_it(tmp_path):
    root = vismin(tmp_path / "v")
    (root / "solutions" / "sim_solution.csv").unlink()
    with pytest.raises(DatasetError, match="sim_solution.csv"):
        load_items("vismin", root)


def mmvp_reference(root, folder, embedded):
    """MMVP's ``scripts/evaluate_vlm.py`` ``benchmark_model`` on the same model: CLIP's softmax over the two images
    of each statement's logits, a pair right when both statements pick their own; patterns by position."""
    categories = [p for p, _ in MMVP_PATTERNS]
    per = len(list(csv.reader((root / "Questions.csv").open()))[1:]) // 2 // len(categories)
    pair_accuracies = {category: 0 for category in categories}
    each, num_pairs = [], 0
    with (root / "Questions.csv").open() as f:
        reader = csv.reader(f)
        next(reader)
        for row in reader:
            qid1, qtype1, statement1 = row
            row = next(reader, None)
            if not row:
                break
            qid2, qtype2, statement2 = row
            qid1, qid2 = int(qid1), int(qid2)
            imgs = [Image.open(root / folder / qtype1 / f"{q}.jpg") for q in (qid1, qid2)]
            s = cosines(embedded, imgs, ["a photo of " + statement1, "a photo of " + statement2])
            probs = torch.from_numpy(100 * s).softmax(dim=-1).numpy()  # logits_per_text: text x image
            pred1 = "img1" if probs[0][0] > 0.5 else "img2"
            pred2 = "img1" if probs[1][0] > 0.5 else "img2"
            gt1 = "img1" if qid1 % 2 == 1 else "img2"
            gt2 = "img1" if qid2 % 2 == 1 else "img2"
            current_category = categories[num_pairs // per]
            each.append(pred1 == gt1 and pred2 == gt2)
            if pred1 == gt1 and pred2 == gt2:
                pair_accuracies[current_category] += 1
            num_pairs += 1
    return {c: v / (num_pairs // len(categories)) * 100 for c, v in pair_accuracies.items()}, each


@pytest.mark.parametrize("folder", ["MLLM_VLM Images", "MMVP_VLM_Images"])
def test_mmvp_matches_its_pair_accuracy(tmp_path, embedded, cosine, folder):
    root = mmvp(tmp_path / "MMVP_VLM", folder)
    items, found = verdicts(cosine, "mmvp-vlm", root)
    reference, each = mmvp_reference(root, folder, embedded)
    assert [o.image for o in found] == each
    results = evaluate([cosine], "mmvp-vlm", None, data=root)["global"]
    for pattern, value in reference.items():
        assert results[pattern]["image"] == pytest.approx(value, abs=0.005)
    assert results["all"]["image"] == pytest.approx(np.mean(list(reference.values())), abs=0.005)
    assert items[0].captions[0].startswith("a photo of ") and BENCHMARKS["mmvp-vlm"].figure == "image"
    assert 0 < sum(each) < len(each)


def test_mmvp_names_a_bad_row(tmp_path):
    root = mmvp(tmp_path / "m")
    lines = (root / "Questions.csv").read_text().splitlines()
    lines[3] = "x," + lines[3].split(",", 1)[1]
    (root / "Questions.csv").write_text("\n".join(lines) + "\n")
    with pytest.raises(DatasetError, match="Questions.csv: line 4: field 'qid'"):
        load_items("mmvp-vlm", root)


def spec_reference(root, embedded):
    """SPEC's ``CLIPWrapper.i2t_evaluate`` and ``t2i_evaluate`` (argmax of each query's cosines against its keys,
    first of the highest), per subset, and ``eval.py``'s averages over the subsets."""
    out, each = {}, []
    for subset in ("absolute_spatial", "count"):
        i2t = json.loads((root / subset / "image2text.json").read_text())
        hits = [int(np.argmax(cosines(embedded, [Image.open(root / subset / d["query"]).convert("RGB")],
                                      d["keys"])[:, 0])) == d["label"] for d in i2t]
        out[f"{subset} i2t"], each = 100 * np.mean(hits), each + hits
        t2i = json.loads((root / subset / "text2image.json").read_text())
        hits = [int(np.argmax(cosines(embedded, [Image.open(root / subset / k).convert("RGB") for k in d["keys"]],
                                      [d["query"]])[0])) == d["label"] for d in t2i]
        out[f"{subset} t2i"], each = 100 * np.mean(hits), each + hits
    return out, each


def test_spec_matches_its_two_accuracies(tmp_path, embedded, cosine):
    root = spec(tmp_path / "spec")
    items, found = verdicts(cosine, "spec", root)
    reference, each = spec_reference(root, embedded)
    assert [o.correct for o in found] == each
    results = evaluate([cosine], "spec", None, data=root)["global"]
    for kind, value in reference.items():
        assert results[kind]["accuracy"] == pytest.approx(value, abs=0.005)
    for direction in ("i2t", "t2i"):
        mean = np.mean([v for k, v in reference.items() if k.endswith(direction)])
        assert results[direction]["accuracy"] == pytest.approx(mean, abs=0.005)
    assert len(items[-1].images) == 3 and len(items[-1].captions) == 1  # text to image: one caption, three images
    assert 0 < sum(each) < len(each)


def test_spec_names_a_bad_label(tmp_path):
    root = spec(tmp_path / "s")
    rows = json.loads((root / "count" / "text2image.json").read_text())
    rows[1]["label"] = 7
    (root / "count" / "text2image.json").write_text(json.dumps(rows))
    with pytest.raises(DatasetError, match="count/text2image.json: item 1: field 'label'"):
        load_items("spec", root)


def test_browse_says_a_text_to_image_item_s_rule_and_will_not_send_it(tmp_path):
    from explorer.eval.browse import for_main_page, rule
    from explorer.images.inputs import InputError

    item = next(it for it in load_items("spec", spec(tmp_path / "s")) if it.kind == "count t2i" and it.right[0] < 0)
    assert rule(item) == f"the caption scored higher on image {item.right.index(0)} than on every other image"
    with pytest.raises(InputError, match="one caption"):
        for_main_page(item)
    assert "vismin" in BENCHMARKS and BENCHMARKS["spec"].menu.startswith("spec - Peng et al., CVPR 2024")


def test_browse_reads_vismin_and_spec_items_as_eval_scores_them(tmp_path, embedded, cosine):
    """Browse's reading of an item (its cosines and verdict) is the evaluation's, for VisMin's swapped pairing and
    SPEC's one caption among pictures alike."""
    from explorer.eval.browse import read

    for name, data in (("vismin", vismin(tmp_path / "v")), ("spec", spec(tmp_path / "s"))):
        items, found = verdicts(cosine, name, data)
        for item, outcome in list(zip(items, found))[:6] + list(zip(items, found))[-3:]:
            reading = read({"global": cosine}, item, item.pictures())
            assert reading.verdicts[cosine.label] == outcome.correct, (name, item.id)
            assert reading.cosines.shape == (len(item.captions), len(item.images))
