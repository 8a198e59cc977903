"""ColorSwap, What'sUp, SugarCrepe++, VALSE and EqBen read from tiny copies in their published layouts and scored by
the project (the embedded model's global cosine), item for item against the authors' metric code re-implemented line
by line on the same cosines; and their malformed files named by file, item and field."""

import json

import numpy as np
import pytest
from layout_fixtures import colorswap, cosines, eqben, sugarcrepe_pp, valse, whatsup
from PIL import Image

from explorer.core.data_roots import DataAccess
from explorer.eval.accuracy import evaluate, item_outcomes
from explorer.eval.benchmark_registry import BENCHMARKS, load_items
from explorer.eval.browse import rule
from explorer.eval.dataset_loaders import DatasetError
from explorer.eval.layouts.whatsup import SUBSETS
from explorer.methods import get_method

NEW = ("colorswap", "whatsup", "sugarcrepe-pp", "valse", "eqben")


@pytest.fixture(scope="module")
def cosine(embedded):
    return get_method("global", embedded)


def verdicts(method, name, data):
    """The project's items and each one's outcome under the global cosine."""
    items = load_items(name, data)
    return items, [found["global"] for found in item_outcomes([method], items, name)]


def wino_reference(result: dict) -> tuple:
    """EqBen's ``eqben_acc.cal_wino_score`` (the Winoground scores ColorSwap reports), in NumPy."""
    def text_correct(result):
        return np.logical_and(result["c0_i0"] > result["c1_i0"], result["c1_i1"] > result["c0_i1"])

    def image_correct(result):
        return np.logical_and(result["c0_i0"] > result["c0_i1"], result["c1_i1"] > result["c1_i0"])

    def group_correct(result):
        return np.logical_and(image_correct(result), text_correct(result))

    return text_correct(result), image_correct(result), group_correct(result)


def wino_scores(sims: list[np.ndarray]) -> dict:
    return {"c0_i0": np.array([s[0, 0] for s in sims]), "c1_i0": np.array([s[1, 0] for s in sims]),
            "c0_i1": np.array([s[0, 1] for s in sims]), "c1_i1": np.array([s[1, 1] for s in sims])}


def assert_wino(results, kinds, found, reference):
    """Item for item and in percent per kind: the project's text / image / group against the reference's."""
    text, image, group = reference
    assert [(o.text, o.image, o.correct) for o in found] == list(zip(text, image, group))
    for kind in set(kinds) | {"all"}:
        keep = np.array([kind in ("all", k) for k in kinds])
        for name, hits in (("text", text), ("image", image), ("group", group)):
            assert results[kind][name] == pytest.approx(100 * hits[keep].mean(), abs=0.005), (kind, name)


def test_colorswap_matches_winoground_scores(tmp_path, embedded, cosine):
    root = colorswap(tmp_path / "data")
    items, found = verdicts(cosine, "colorswap", root)
    rows = json.loads((root / "test.json").read_text())
    sims = [cosines(embedded, [Image.open(root / r[k]).convert("RGB") for k in ("image_1", "image_2")],
                    [r["caption_1"], r["caption_2"]]) for r in rows]
    results = evaluate([cosine], "colorswap", None, data=root)["global"]
    assert_wino(results, [r["image_source"] for r in rows], found, wino_reference(wino_scores(sims)))
    assert {it.kind for it in items} == {"dalle3", "midjourney"} and results["all"]["n"] == 8


def whatsup_reference(dataset: list, scores: np.ndarray, subset: str) -> dict:
    """What'sUp's ``Controlled_Images.evaluate_scores`` (individual, pair and set accuracy), line by line."""
    eval_dict = {(d['image_path'].split('/')[-1].split('_')[0], d['image_path'].split('/')[-1].split('_')[-1][:-5]):
                 {'left': 0, 'right': 0, **({'on': 0, 'under': 0} if subset == 'A' else {'in-front': 0, 'behind': 0})}
                 for d in dataset}
    preds = np.argmax(np.squeeze(scores, axis=1), axis=-1)
    correct_mask = (preds == 0)
    for d, correct in zip(dataset, correct_mask):
        eval_dict[(d['image_path'].split('/')[-1].split('_')[0], d['image_path'].split('/')[-1].split('_')[-1][:-5])][
            d['image_path'].split('/')[-1].split('_')[1]] = correct
    pair_correct = 0
    set_correct = 0
    for obj_pair, correct_dict in eval_dict.items():
        if correct_dict['left'] and correct_dict['right']:
            pair_correct += 1
        if subset == 'A':
            if correct_dict['on'] and correct_dict['under']:
                pair_correct += 1
        else:
            if correct_dict['in-front'] and correct_dict['behind']:
                pair_correct += 1
        if sum(correct_dict.values()) == 4:
            set_correct += 1
    pair_accuracy = pair_correct * 100 / (len(dataset) / 2)
    set_accuracy = set_correct * 100 / (len(dataset) / 4)
    return {"correct": correct_mask, "accuracy": np.mean(correct_mask) * 100, "pair": pair_accuracy,
            "set": set_accuracy}


def prepositions_reference(dataset: list, subset: str) -> list[str]:
    """``self.all_prepositions`` as What'sUp's ``Controlled_Images`` (A, B), ``COCO_QA`` and ``VG_QA`` build it."""
    all_prepositions = []
    if subset in ("Controlled_Images_A", "Controlled_Images_B"):
        for d in dataset:
            if 'left_of' in d['image_path']:
                all_prepositions.append('left_of')
            elif 'right_of' in d['image_path']:
                all_prepositions.append('right_of')
            elif subset.endswith("A") and '_on_' in d['image_path']:
                all_prepositions.append('on')
            elif subset.endswith("B") and '_in-front_of_' in d['image_path']:
                all_prepositions.append('in-front_of')
            else:
                all_prepositions.append('under' if subset.endswith("A") else 'behind')
    elif subset.endswith("one_obj"):
        all_prepositions = [d[1].split()[-1] for d in dataset]
    else:
        for d in dataset:
            if 'left of' in d[1]:
                all_prepositions.append('left')
            elif 'right of' in d[1]:
                all_prepositions.append('right')
            elif subset.startswith("COCO") and 'above' in d[1]:
                all_prepositions.append('above')
            elif subset.startswith("VG") and 'front of' in d[1]:
                all_prepositions.append('front')
            elif subset.startswith("VG") and 'behind' in d[1]:
                all_prepositions.append('behind')
            else:
                all_prepositions.append('below' if subset.startswith("COCO") else 'top')
    return all_prepositions


def records_reference(correct_mask: np.ndarray, all_prepositions: list[str]) -> list[dict]:
    """The per-preposition records every What'sUp ``evaluate_scores`` returns."""
    all_prepositions = np.array(all_prepositions)
    result_records = []
    for prepositions in np.unique(all_prepositions):
        prepositions_mask = (all_prepositions == prepositions)
        if prepositions_mask.sum() == 0:
            continue
        result_records.append({"Preposition": prepositions, "Accuracy": correct_mask[prepositions_mask].mean(),
                               "Count": prepositions_mask.sum()})
    return result_records


def test_whatsup_matches_its_accuracy_pairs_and_sets(tmp_path, embedded, cosine):
    root = whatsup(tmp_path / "data")
    items, found = verdicts(cosine, "whatsup", root)
    results = evaluate([cosine], "whatsup", None, data=root)["global"]
    correct = []
    for subset, file in SUBSETS.items():
        if not (root / file).is_file():
            continue
        dataset = json.loads((root / file).read_text())
        if subset.startswith("Controlled"):  # N x 1 x 4, the first option right
            scores = np.stack([cosines(embedded, [Image.open(root / d["image_path"].removeprefix("data/"))],
                                       d["caption_options"]).T for d in dataset])
            ref = whatsup_reference(dataset, scores, subset[-1])
            assert results[subset]["pair"] == pytest.approx(ref["pair"], abs=0.005)
            assert results[subset]["set"] == pytest.approx(ref["set"], abs=0.005)
        else:  # COCO_QA / VG_QA: N x 1 x 2, caption then foil
            folder, name = ("val2017", lambda i: f"{str(i).zfill(12)}.jpg") if subset.startswith("COCO") else \
                ("vg_images", lambda i: f"{i}.jpg")
            scores = np.stack([cosines(embedded, [Image.open(root / folder / name(d[0]))], d[1:]).T for d in dataset])
            preds = np.argmax(np.squeeze(scores, axis=1), axis=-1)
            ref = {"correct": preds == 0, "accuracy": np.mean(preds == 0) * 100}
        assert results[subset]["accuracy"] == pytest.approx(ref["accuracy"], abs=0.005), subset
        records = records_reference(ref["correct"], prepositions_reference(dataset, subset))
        assert {f"{subset}: {r['Preposition']}" for r in records} == {k for k in results if k.startswith(subset + ":")}
        for r in records:
            cell = results[f"{subset}: {r['Preposition']}"]
            assert (cell["accuracy"], cell["n"]) == (pytest.approx(100 * r["Accuracy"], abs=0.005), r["Count"])
        correct += list(ref["correct"])
    assert [o.correct for o in found] == correct and len(items) == 3 * 4 + 3 * 4 - 1 + 5 + 5
    assert 0 < sum(correct) < len(correct)  # the comparison holds on both sides of the verdict


def test_sugarcrepe_pp_matches_itt_and_tot(tmp_path, embedded, cosine):
    root = sugarcrepe_pp(tmp_path / "VLMs")
    items, found = verdicts(cosine, "sugarcrepe-pp", root)
    results = evaluate([cosine], "sugarcrepe-pp", None, data=root)
    full, text = [], []
    for cat in ("swap_att", "swap_obj"):  # the authors' test(): cosines of image, p1, p2 and neg
        for row in json.loads((root / "data" / f"{cat}.json").read_text()):
            caps = [row["caption"], row["caption2"], row["negative_caption"]]
            s = cosines(embedded, [Image.open(root / "images" / row["filename"]).convert("RGB")], caps)[:, 0]
            t = embedded.embed_texts(caps).numpy()
            cos_p1, cos_p2, cos_neg = s
            cos_p1p2, cos_p1_neg, cos_p2_neg = t[0] @ t[1], t[0] @ t[2], t[1] @ t[2]
            full.append(bool(cos_p1 > cos_neg and cos_p2 > cos_neg))
            text.append(bool(cos_p1p2 > cos_p1_neg and cos_p1p2 > cos_p2_neg))
    assert [o.correct for o in found] == full and items[0].also_right == (1,)
    assert rule(items[0]) == "captions 0 and 1 scored above every other caption"  # Browse says both are right
    assert results["global"]["all"]["itt"] == pytest.approx(100 * np.mean(full), abs=0.005)
    assert results["text-only"]["all"]["tot"] == pytest.approx(100 * np.mean(text), abs=0.005)
    assert results["global"]["swap_att"]["itt"] == pytest.approx(100 * np.mean(full[:6]), abs=0.005)
    assert results["text-only"]["swap_obj"]["tot"] == pytest.approx(100 * np.mean(text[6:]), abs=0.005)


def test_valse_matches_pairwise_accuracy_on_validated_items(tmp_path, embedded, cosine):
    data = valse(tmp_path / "VALSE")
    items, found = verdicts(cosine, "valse", data)
    results = evaluate([cosine], "valse", None, data=data)["global"]
    pairwise = {}
    for piece, folder in (("existence", "visual7w/images"), ("relations", "relations/test_images")):
        count, pairwise_acc = 0, 0
        for foil_id, foil in json.loads((data / f"{piece}.json").read_text()).items():
            if foil["mturk"]["caption"] >= 2:  # valid examples only (validated by mturkers)
                s = cosines(embedded, [Image.open(data / folder / foil["image_file"])], [foil["caption"], foil["foil"]])
                pairwise.setdefault(piece, []).append(bool(s[0, 0] > s[1, 0]))
                pairwise_acc += int(s[0, 0] > s[1, 0])
                count += 1
        assert results[piece]["pairwise"] == pytest.approx(pairwise_acc / count * 100, abs=0.005)
        assert results[piece]["n"] == count == 5
    assert [o.correct for o in found] == pairwise["existence"] + pairwise["relations"]
    assert "existence_test_2" not in {it.id for it in items}


def test_eqben_matches_its_group_score(tmp_path, embedded, cosine):
    root = eqben(tmp_path / "eqben")
    items, found = verdicts(cosine, "eqben", root)
    results = evaluate([cosine], "eqben", None, data=root)["global"]
    rows = json.loads((root / "eqben_subset_10percent_final.json").read_text())

    def process(image):  # the authors' process_img_pixel / process_img_npy
        if image.endswith(".npy"):
            return Image.fromarray(np.load(image)[:, :, [2, 1, 0]], 'RGB')
        return Image.open(image).convert("RGB")

    sims = [cosines(embedded, [process(str(root / "image_subset" / r[k])) for k in ("image0", "image1")],
                    [r["caption0"], r["caption1"]]) for r in rows]
    kinds = [r["image0"].split("/")[0] for r in rows]
    assert_wino(results, kinds, found, wino_reference(wino_scores(sims)))
    assert set(results) == {"eqbenkubric_attr", "eqbenkubric_loc", "eqbenyoucook2", "all"}


@pytest.mark.parametrize("name, build, file, edit, said", [
    ("colorswap", colorswap, "test.json", lambda r: r[3].pop("caption_2"),
     "test.json: item 3 has no field 'caption_2'"),
    ("whatsup", whatsup, "controlled_images_dataset.json", lambda r: r[1].update(caption_options="x"),
     "controlled_images_dataset.json: item 1: field 'caption_options'"),
    ("whatsup", whatsup, "coco_qa_one_obj.json", lambda r: r[2].pop(), "coco_qa_one_obj.json: item 2: expected"),
    ("sugarcrepe-pp", sugarcrepe_pp, "data/swap_obj.json", lambda r: r[4].pop("caption2"),
     "swap_obj.json: item 4 has no field 'caption2'"),
    ("valse", valse, "data/relations.json", lambda r: r["relations_test_1"].pop("mturk"),
     "relations.json: item 'relations_test_1' has no field 'mturk'"),
    ("eqben", eqben, "eqben_subset_10percent_final.json", lambda r: r[5].update(caption1=3),
     "eqben_subset_10percent_final.json[5]: field 'caption1' should be text"),
])
def test_a_malformed_file_is_named_with_its_item_and_field(tmp_path, name, build, file, edit, said):
    top = build(tmp_path / "b")
    path = tmp_path / "b" / file
    rows = json.loads(path.read_text())
    edit(rows)
    path.write_text(json.dumps(rows))
    with pytest.raises(DatasetError, match=said.replace("[", r"\[").replace("]", r"\]")):
        load_items(name, top)


@pytest.mark.parametrize("name, build, file, key, field", [
    ("colorswap", colorswap, "test.json", 0, "image_1"),
    ("whatsup", whatsup, "controlled_clevr_dataset.json", 0, "image_path"),
    ("sugarcrepe-pp", sugarcrepe_pp, "data/swap_att.json", 0, "filename"),
    ("valse", valse, "data/existence.json", "existence_test_0", "image_file"),
    ("eqben", eqben, "eqben_subset_10percent_final.json", 0, "image1"),
])
def test_paths_a_file_names_stay_inside_its_folder(tmp_path, name, build, file, key, field):
    top = build(tmp_path / "b")
    (tmp_path / "secret.png").write_bytes(b"x")
    path = tmp_path / "b" / file
    rows = json.loads(path.read_text())
    rows[key][field] = "../" * 6 + "secret.png" if name != "whatsup" else "data/../../../secret.png"
    path.write_text(json.dumps(rows))
    with pytest.raises(DatasetError, match="leads outside"):
        load_items(name, top, access=DataAccess())


def test_registry_names_each_with_citation_what_it_tests_and_metric():
    for name in NEW:
        b = BENCHMARKS[name]
        assert b.from_files and b.citation and b.tests and b.scores and name in b.menu and b.citation in b.menu


def test_colorswap_parquet_export_with_images_inside(tmp_path):
    import io

    import pandas as pd

    root = colorswap(tmp_path / "json")
    rows = json.loads((root / "test.json").read_text())

    def struct(path):  # the Hugging Face Image feature: {"bytes", "path"}
        buf = io.BytesIO()
        Image.open(root / path).save(buf, format="PNG")
        return {"bytes": buf.getvalue(), "path": None}

    frame = pd.DataFrame([{**r, "image_1": struct(r["image_1"]), "image_2": struct(r["image_2"])} for r in rows])
    (tmp_path / "hf" / "data").mkdir(parents=True)
    frame.to_parquet(tmp_path / "hf" / "data" / "test-00000-of-00001.parquet")
    from_json, from_parquet = load_items("colorswap", root), load_items("colorswap", tmp_path / "hf")
    assert [(it.id, it.kind, it.captions) for it in from_parquet] == [(it.id, it.kind, it.captions) for it in from_json]
    assert from_parquet[3].images[1].load().tobytes() == Image.open(root / rows[3]["image_2"]).convert("RGB").tobytes()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_whatsup_pair_and_set_match_the_authors_on_any_verdicts(tmp_path, seed):
    """Verdicts drawn at random (most right, so that pairs and sets are won): the project's pair and set accuracy
    against ``Controlled_Images.evaluate_scores`` on scores whose argmax gives the same verdicts."""
    from explorer.eval.layouts.whatsup import pair_and_set

    root = whatsup(tmp_path / "data")
    items = load_items("whatsup", root)
    correct = list(np.random.default_rng(seed).random(len(items)) < 0.8)
    found = pair_and_set(items, correct)
    for subset, file in list(SUBSETS.items())[:2]:
        dataset = json.loads((root / file).read_text())
        mask = [ok for it, ok in zip(items, correct) if it.kind == subset]
        scores = np.array([[[1.0 if ok else 0.0, 0.5, 0.2, 0.1]] for ok in mask])  # N x 1 x 4
        ref = whatsup_reference(dataset, scores, subset[-1])
        assert (found[subset]["pair"], found[subset]["set"]) == (round(ref["pair"], 2), round(ref["set"], 2))
        assert found[subset]["pair"] > 0
