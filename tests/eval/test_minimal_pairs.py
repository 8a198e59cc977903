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
from minimal_pair_fixtures import MMVP_PATTERNS, mmvp, old_key, spec, vismin
from PIL import Image
from test_layouts import cosine, verdicts  # noqa: F401 (a fixture)

from explorer.eval.accuracy import evaluate, item_outcomes
from explorer.eval.benchmark_registry import BENCHMARKS, load_items
from explorer.eval.dataset_loaders import DatasetError


def compute_contrastive_accuracy(contrastive_scores: list):
    """vismin-bench/metric.py's ``compute_contrastive_accuracy`` as the authors keep it (rabiulcste/vismin 680a3ee,
    unchanged at 29ce2c0), line by line; each item's three verdicts kept beside it for the item-for-item check."""
    split_correct_count = defaultdict(lambda: {"text": 0, "image": 0, "group": 0, "count": 0})
    verdicts = []
    for pred_dict in contrastive_scores:
        split = pred_dict["category"]
        text_correct = pred_dict["T0_I0"] > pred_dict["T1_I0"] and pred_dict["T1_I1"] > pred_dict["T0_I1"]
        image_correct = pred_dict["T0_I0"] > pred_dict["T0_I1"] and pred_dict["T1_I1"] > pred_dict["T1_I0"]
        split_correct_count[split]["text"] += text_correct
        split_correct_count[split]["image"] += image_correct
        split_correct_count[split]["group"] += text_correct and image_correct
        split_correct_count[split]["count"] += 1
        verdicts.append((text_correct, image_correct, text_correct and image_correct))
    full_correct_count = {}
    for split in split_correct_count:
        denominator = split_correct_count[split]["count"]
        curr_text = round(split_correct_count[split]["text"] * 100 / denominator, 2)
        curr_image = round(split_correct_count[split]["image"] * 100 / denominator, 2)
        curr_group = round(split_correct_count[split]["group"] * 100 / denominator, 2)
        full_correct_count[split] = {"text": curr_text, "image": curr_image, "group": curr_group,
                                     "count": denominator}
    return full_correct_count, verdicts


def evaluate_relation(pred1, pred2, operator):
    """vismin-bench/metric.py of the first release (4fdeb0f), as written."""
    if operator == ">":
        return pred1 > pred2
    elif operator == "<":
        return pred1 < pred2
    elif operator == "=":
        return pred1 == pred2
    raise ValueError(f"Invalid operator: {operator}")


def first_release_accuracy(contrastive_scores: list, ground_truth: list):
    """The first release's ``compute_contrastive_accuracy`` over its answer key's relations (4fdeb0f)."""
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


def vismin_predictions(root, embedded) -> list[dict]:
    """The authors' ``eval.py``: each row's T0_I0, T0_I1, T1_I0, T1_I1, read from the parquet or the arrow folder."""
    parquet = root / "data" / "test-00000-of-00001.parquet"
    if parquet.is_file():
        samples = pd.read_parquet(parquet).to_dict(orient="records")
    else:
        import pyarrow as pa

        with pa.memory_map(str(root / "data" / "test" / "data-00000-of-00001.arrow")) as source:
            samples = pa.ipc.open_stream(source).read_all().to_pylist()
    predictions = []
    for sample in samples:
        s = cosines(embedded, [Image.open(io.BytesIO(sample[k]["bytes"])).convert("RGB")
                               for k in ("image_0", "image_1")], [sample["text_0"], sample["text_1"]])
        predictions.append({"idx": sample["id"], "T0_I0": s[0, 0], "T0_I1": s[0, 1], "T1_I0": s[1, 0],
                            "T1_I1": s[1, 1], "category": sample["category"]})
    return predictions


def assert_vismin(results, reference, found, each):
    """Item for item and cell for cell: the project's verdicts and percentages against the reference's."""
    assert [(o.text, o.image, o.correct) for o in found] == each
    assert set(reference) <= set(results)
    for category, cell in reference.items():
        assert {k: results[category][k] for k in ("text", "image", "group")} == \
            pytest.approx({k: cell[k] for k in ("text", "image", "group")}, abs=0.005)
        assert results[category]["n"] == cell["count"]
    flat = [v for o in found for v in (o.text, o.image)]
    assert 0 < sum(flat) < len(flat)  # the comparison holds on both sides of the verdicts


@pytest.mark.parametrize("arrow", [False, True], ids=["hub-parquet", "load_from_disk-arrow"])
def test_vismin_today_matches_the_authors_current_metric(tmp_path, embedded, cosine, arrow):
    """Today's layout (no answer key, caption i image i's) read by default and scored as the current metric.py."""
    root = vismin(tmp_path / "vismin-bench", arrow=arrow)
    items, found = verdicts(cosine, "vismin", root)
    reference, each = compute_contrastive_accuracy(vismin_predictions(root, embedded))
    assert_vismin(evaluate([cosine], "vismin", None, data=root)["global"], reference, found, each)
    assert {it.right for it in items} == {(0, 1)} and [it.kind for it in items[::3]] == list(reference)


def test_vismin_first_release_reads_its_key_where_passed(tmp_path, embedded, cosine):
    """The November 2024 rows (shuffled captions) with their answer key passed as --images: the first metric.py."""
    root = vismin(tmp_path / "vismin-bench", old=True)
    key = root / "solutions" / "sim_solution.csv"
    items = load_items("vismin", root, images=key)
    found = [f["global"] for f in item_outcomes([cosine], items, "vismin")]
    truth = pd.read_csv(key).to_dict(orient="records")
    reference, each = first_release_accuracy(vismin_predictions(root, embedded), truth)
    assert_vismin(evaluate([cosine], "vismin", None, data=root, images=key)["global"], reference, found, each)
    assert [it.right for it in items[:2]] == [(0, 1), (1, 0)]  # the key's pairing, not the row's order


def test_an_old_key_beside_todays_rows_is_refused_saying_whose_each_is(tmp_path):
    root = vismin(tmp_path / "vismin-bench")
    old_key(root)
    with pytest.raises(DatasetError) as raised:
        load_items("vismin", root)
    said = str(raised.value)
    assert "November 2024 release" in said and "since January 2025 put caption i with image i" in said, said
    assert str(tmp_path) not in said


def test_a_key_of_another_split_or_order_is_refused(tmp_path):
    root = vismin(tmp_path / "vismin-bench", old=True)
    key = root / "solutions" / "sim_solution.csv"
    frame = pd.read_csv(key)
    frame.loc[0, "category"] = "counting"
    frame.to_csv(key, index=False)
    with pytest.raises(DatasetError, match="row 2 is item 0 .counting., but the data's row 1 is item 0 .object."):
        load_items("vismin", root, images=key)
    frame.iloc[:-1].to_csv(key, index=False)
    with pytest.raises(DatasetError, match="not the same split"):
        load_items("vismin", root, images=key)


def mmvp_reference(root, folder, embedded):
    """MMVP's ``scripts/evaluate_vlm.py`` ``benchmark_model`` on the same model: CLIP's softmax over the two images
    of each statement's logits, a pair right when both statements pick their own; patterns by position."""
    categories = [
        'Orientation and Direction', 'Presence of Specific Features',
        'State and Condition', 'Quantity and Count',
        'Positional and Relational Context', 'Color and Appearance',
        'Structural Characteristics', 'Texts',
        'Viewpoint and Perspective'
    ][:len(MMVP_PATTERNS)]  # the script's nine, as many as the fixture has; 15 pairs each there, ``per`` here
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
    assert "all" not in results and "pooled" not in results  # the paper reports no figure over both directions
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


def test_real_and_world_versions_name_their_cells_as_the_papers_do(tmp_path):
    """VisMin's categories (the hub's), MMVP-VLM's patterns (its script's, the paper's) and SPEC's subsets and
    directions: the world versions use the same names, and the file's short MMVP types are not shown."""
    from explorer.eval.layouts.mmvp import PATTERNS

    real = {name: {it.kind for it in load_items(name, make(tmp_path / name))}
            for name, make in (("vismin", vismin), ("mmvp-vlm", mmvp), ("spec", spec))}
    world = {name: {it.kind for it in load_items(f"world-{name.split('-')[0]}", limit=1, split="id")}
             for name in real}
    assert real["vismin"] == world["vismin"] == {"object", "attribute", "relation", "counting"}
    assert real["mmvp-vlm"] == {"Orientation and Direction", "Presence of Specific Features"}
    assert world["mmvp-vlm"] <= set(PATTERNS) and "Positional and Relational Context" in world["mmvp-vlm"]
    directions = {kind.split()[-1] for kind in real["spec"] | world["spec"]}
    assert directions == {"i2t", "t2i"} and world["spec"] >= {"count i2t", "count t2i"} and "count t2i" in real["spec"]
    assert not BENCHMARKS["spec"].overall and BENCHMARKS["spec"].reported == BENCHMARKS["world-spec"].reported
