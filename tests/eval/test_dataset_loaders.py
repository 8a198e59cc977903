"""Public benchmark loaders and their metrics, on tiny files in each benchmark's layout and a fake method."""

import io
import json
import logging

import numpy as np
import pandas as pd
import pytest
from conftest import COLOURS, ColourMethod, LengthMethod, solid, sugarcrepe, write_json
from PIL import Image

from explorer.eval.accuracy import evaluate
from explorer.eval.accuracy_reports import report_frame, write_reports
from explorer.eval.benchmark_registry import load_items
from explorer.eval.dataset_loaders import DatasetError

NO_BAR = lambda it: it  # noqa: E731


def points(cells: dict) -> dict:
    """Scores without their bootstrap intervals (tested on their own)."""
    return {k: points(v) for k, v in cells.items() if k != "ci"} if isinstance(cells, dict) else cells


def png_bytes(colour) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (8, 8), COLOURS[colour]).save(buf, format="PNG")
    return buf.getvalue()


def test_sugarcrepe_loads_and_scores(tmp_path, caplog):
    root = sugarcrepe(tmp_path)
    with caplog.at_level(logging.WARNING, logger="explorer.eval.dataset_loaders"):
        items = load_items("sugarcrepe", root)
    assert "replace_rel.json" in caplog.text  # a missing category is skipped with a warning
    assert [(it.id, it.category) for it in items] == [("0", "add_obj"), ("1", "add_obj"), ("12", "swap_att")]
    assert items[0].right == (0,) and items[0].captions == ("a red square", "a blue square")
    assert items[0].images[0].path == root / "val2017" / "000000000001.jpg"

    colour, length = ColourMethod(), LengthMethod()
    res = evaluate([colour, length], "sugarcrepe", None, data=root, progress=NO_BAR)
    # colour: item 0 right (1 > 0); item 1 both 0, equal words -> tie fails; item 12 right
    assert points(res["colour"]) == {"add_obj": {"accuracy": 50.0, "n": 2}, "swap_att": {"accuracy": 100.0, "n": 1},
                                     "all": {"accuracy": 66.67, "n": 3}}
    assert res["colour"]["swap_att"]["ci"] == {"accuracy": [100.0, 100.0]}  # one item: no spread
    low, high = res["colour"]["all"]["ci"]["accuracy"]
    assert low < 66.67 < high
    # length: 12 < 13, 11 < 13 wrong; "green" (5) > "red" (3) right
    assert res["length"]["add_obj"]["accuracy"] == 0.0 and points(res["length"]["all"]) == {"accuracy": 33.33, "n": 3}
    assert colour.prepared == 3


def test_sugarcrepe_limit_is_per_category_and_images_folder(tmp_path):
    root = sugarcrepe(tmp_path / "data")
    (root / "val2017").rename(tmp_path / "coco")
    res = evaluate([ColourMethod()], "sugarcrepe", 1, data=root, progress=NO_BAR, images=tmp_path / "coco")["colour"]
    assert res["add_obj"]["n"] == 1 and res["swap_att"]["n"] == 1 and points(res["all"]) == {"accuracy": 100.0, "n": 2}


def test_sugarcrepe_errors_name_file_and_field(tmp_path):
    root = sugarcrepe(tmp_path)
    write_json(root / "swap_att.json", {"12": {"filename": "x.jpg", "caption": "green"}})
    with pytest.raises(DatasetError, match=r"swap_att\.json: item '12' has no field 'negative_caption'"):
        load_items("sugarcrepe", root)
    (root / "swap_att.json").write_text('{"12": {"filename": ')
    with pytest.raises(DatasetError, match=r"swap_att\.json: invalid JSON"):
        load_items("sugarcrepe", root)
    (root / "swap_att.json").unlink()
    write_json(root / "add_obj.json", {"0": {"filename": 7, "caption": "a", "negative_caption": "b"}})
    with pytest.raises(DatasetError, match=r"add_obj\.json: item '0': field 'filename' should be text"):
        load_items("sugarcrepe", root)


def test_sugarcrepe_missing_folders(tmp_path):
    root = sugarcrepe(tmp_path)
    with pytest.raises(DatasetError, match=r"image folder .*coco"):
        load_items("sugarcrepe", root, images=tmp_path / "coco")
    for f in root.glob("*.json"):
        f.unlink()
    with pytest.raises(DatasetError, match="no SugarCrepe category file"):
        load_items("sugarcrepe", root)
    with pytest.raises(DatasetError, match="no file or folder"):
        load_items("sugarcrepe", tmp_path / "absent")
    with pytest.raises(ValueError, match="unknown benchmark"):
        load_items("sugarcrap", root)


def test_images_load_lazily_and_errors_name_the_item(tmp_path):
    root = sugarcrepe(tmp_path)
    (root / "val2017" / "000000000002.jpg").write_bytes(b"not an image")
    (root / "val2017" / "000000000003.jpg").unlink()
    items = load_items("sugarcrepe", root)  # nothing decoded yet
    assert items[0].images[0].load().size == (16, 12)
    with pytest.raises(DatasetError, match=r"add_obj\.json: item '1': .*000000000002\.jpg"):
        items[1].images[0].load()
    with pytest.raises(DatasetError, match=r"swap_att\.json: item '12': image file .*000000000003\.jpg not found"):
        items[2].images[0].load()


# ---------------------------------------------------------------- Winoground

# (image_0, image_1, caption_0, caption_1, tag) and, for the colour method, (text, image, group):
WINO = [
    ("red", "blue", "a red dog", "a blue dog", "Object"),      # s = [[.97, -.03], [-.03, .97]]: all right
    ("red", "blue", "red", "red or blue", "Relation"),         # s = [[.99, -.01], [.97, .97]]: text only
    ("red", "blue", "blue dog", "red dog", "Both"),            # swapped: all wrong
    ("green", "green", "green", "a green cat", "Object"),      # same images: image ties, text fails on image 1
]
WINO_EXPECTED = {
    "Object": {"text": 50.0, "image": 50.0, "group": 50.0, "n": 2},
    "Relation": {"text": 100.0, "image": 0.0, "group": 0.0, "n": 1},
    "Both": {"text": 0.0, "image": 0.0, "group": 0.0, "n": 1},
    "all": {"text": 50.0, "image": 25.0, "group": 25.0, "n": 4},
}


def wino_rows():
    return [{"id": i, "caption_0": c0, "caption_1": c1, "tag": tag, "secondary_tag": "", "num_main_preds": 1,
             "collapsed_tag": tag} for i, (_, _, c0, c1, tag) in enumerate(WINO)]


def test_winoground_jsonl(tmp_path):
    lines = []
    for row, (i0, i1, *_) in zip(wino_rows(), WINO):
        row.update(image_0=f"ex_{row['id']}_img_0", image_1=f"ex_{row['id']}_img_1")
        solid(tmp_path / "data" / "images" / f"{row['image_0']}.png", i0)
        solid(tmp_path / "data" / "images" / f"{row['image_1']}.png", i1)
        lines.append(json.dumps(row))
    (tmp_path / "data" / "examples.jsonl").write_text("\n".join(lines) + "\n")

    items = load_items("winoground", tmp_path)  # the repository root: finds data/
    assert items[1].right == (0, 1) and items[1].captions == ("red", "red or blue")
    assert items[1].images[1].path == tmp_path / "data" / "images" / "ex_1_img_1.png"
    assert items[1].category == "Relation" and items[1].info["num_main_preds"] == 1
    res = evaluate([ColourMethod()], "winoground", None, data=tmp_path / "data", progress=NO_BAR)
    assert points(res["colour"]) == WINO_EXPECTED
    assert all(c["ci"]["group"][0] <= c["group"] <= c["ci"]["group"][1] for c in res["colour"].values())
    assert evaluate([ColourMethod()], "winoground", 1, data=tmp_path, progress=NO_BAR)["colour"]["all"]["n"] == 3

    bad = json.loads(lines[1])
    del bad["caption_1"]
    (tmp_path / "data" / "examples.jsonl").write_text(lines[0] + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(DatasetError, match=r"examples\.jsonl: item 1 has no field 'caption_1'"):
        load_items("winoground", tmp_path)
    (tmp_path / "data" / "examples.jsonl").write_text(lines[0] + "\n{oops\n")
    with pytest.raises(DatasetError, match=r"examples\.jsonl: invalid JSON on line 2"):
        load_items("winoground", tmp_path)
    (tmp_path / "data" / "examples.jsonl").write_text(lines[0] + "\n")
    (tmp_path / "data" / "images").rename(tmp_path / "pics")
    with pytest.raises(DatasetError, match=r"Winoground image folder .*images"):
        load_items("winoground", tmp_path)


def test_winoground_parquet(tmp_path):
    rows = wino_rows()
    for row, (i0, i1, *_) in zip(rows, WINO):
        row.update(image_0={"bytes": png_bytes(i0), "path": None}, image_1={"bytes": png_bytes(i1), "path": None})
    (tmp_path / "data").mkdir()
    pd.DataFrame(rows).to_parquet(tmp_path / "data" / "test-00000-of-00001.parquet")

    items = load_items("winoground", tmp_path)
    assert len(items) == 4 and items[0].images[0].data is not None and items[0].images[0].load().size == (8, 8)
    assert points(evaluate([ColourMethod()], "winoground", None, data=tmp_path, progress=NO_BAR)["colour"]) == WINO_EXPECTED

    pd.DataFrame(rows).drop(columns="tag").to_parquet(tmp_path / "data" / "test-00000-of-00001.parquet")
    with pytest.raises(DatasetError, match=r"test-00000-of-00001\.parquet: no column 'tag'"):
        load_items("winoground", tmp_path)


# ---------------------------------------------------------------- BiVLC

BIVLC = [  # image, caption, negative_caption, negative_image, type, subtype
    ("imgs/r.png", "a red car", "a blue car", "imgs/b.png", "replace", "obj"),   # all right
    ("imgs/r.png", "red", "red or blue", "imgs/b.png", "swap", "att"),           # text only
    ("imgs/g.png", "a blue car", "a green car", "imgs/b.png", "replace", "att"),  # all wrong
]


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "json"])
def test_bivlc(tmp_path, fmt):
    for name, colour in (("r", "red"), ("b", "blue"), ("g", "green")):
        solid(tmp_path / "imgs" / f"{name}.png", colour)
    frame = pd.DataFrame(BIVLC, columns=["image", "caption", "negative_caption", "negative_image", "type", "subtype"])
    path = tmp_path / f"bivlc.{fmt}"
    if fmt == "csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_json(path, orient="records", lines=fmt == "jsonl")

    items = load_items("bivlc", tmp_path)
    assert items[1].captions == ("red", "red or blue") and items[1].category == "swap"
    assert items[1].images[1].path == tmp_path / "imgs" / "b.png" and items[1].info["subtype"] == "att"
    res = evaluate([ColourMethod()], "bivlc", None, data=path, progress=NO_BAR)["colour"]
    assert points(res["replace"]) == {"text": 50.0, "image": 50.0, "group": 50.0, "n": 2}
    assert points(res["swap"]) == {"text": 100.0, "image": 0.0, "group": 0.0, "n": 1}
    assert points(res["all"]) == {"text": 66.67, "image": 33.33, "group": 33.33, "n": 3}

    frame.drop(columns="negative_image").to_csv(tmp_path / "bivlc.csv", index=False)
    with pytest.raises(DatasetError, match=r"bivlc\.csv: no column 'negative_image'"):
        load_items("bivlc", tmp_path / "bivlc.csv")
    if fmt != "csv":
        with pytest.raises(DatasetError, match="several BiVLC tables"):
            load_items("bivlc", tmp_path)


def test_bivlc_empty_cell_names_the_row(tmp_path):
    path = tmp_path / "bivlc.csv"
    path.write_text("image,caption,negative_caption,negative_image,type\na.png,x,y,b.png,add\nc.png,,y,d.png,add\n")
    with pytest.raises(DatasetError, match=r"bivlc\.csv: row 1 has no field 'caption'"):
        load_items("bivlc", tmp_path)


# ---------------------------------------------------------------- ARO


def two_colour(path, split=20, size=(60, 30)):
    """Red left of ``split``, blue right of it: the mean is bluish, the left crop red."""
    path.parent.mkdir(parents=True, exist_ok=True)
    a = np.zeros((size[1], size[0], 3), np.uint8)
    a[:, :split] = COLOURS["red"]
    a[:, split:] = COLOURS["blue"]
    Image.fromarray(a).save(path)


def aro_row(image, box, true, false, **extra):
    x, y, w, h = box
    return {"image_path": image, "bbox_x": x, "bbox_y": y, "bbox_w": w, "bbox_h": h, "true_caption": true,
            "false_caption": false, **extra}


def test_aro_crops_to_the_box(tmp_path):
    two_colour(tmp_path / "images" / "1.jpg")
    solid(tmp_path / "images" / "2.jpg", "blue")
    solid(tmp_path / "images" / "3.jpg", "green", size=(40, 30))
    write_json(tmp_path / "visual_genome_relation.json", [
        aro_row("1.jpg", (0, 0, 20, 30), "the red", "the blue", relation_name="on"),  # right only when cropped
        aro_row("2.jpg", (0, 0, 16, 12), "a green thing", "red thing", relation_name="on"),  # tie: shorter false
    ])
    write_json(tmp_path / "visual_genome_attribution.json", [
        aro_row("3.jpg", (5, 5, 10, 8), "green", "yellow", attributes=["green", "yellow"]),
    ])
    items = load_items("aro", tmp_path)
    assert [it.category for it in items] == ["VG-Relation", "VG-Relation", "VG-Attribution"]
    assert items[0].images[0].box == (0.0, 0.0, 20.0, 30.0) and items[0].info["relation_name"] == "on"
    assert items[0].images[0].load().size == (20, 30) and items[2].images[0].load().size == (10, 8)
    assert np.asarray(items[0].images[0].load()).reshape(-1, 3).mean(0)[0] > 200  # the red half

    res = evaluate([ColourMethod()], "aro", None, data=tmp_path, progress=NO_BAR)["colour"]
    # VG-Relation's cell is its authors' macro accuracy (one relation, "on", here); the attribute pair is seen
    # fewer than 25 times, so VG-Attribution keeps its pooled cell alone
    assert points(res) == {"VG-Relation": {"accuracy": 50.0, "n": 2, "kinds": 1},
                           "VG-Relation pooled": {"accuracy": 50.0, "n": 2},
                           "VG-Attribution": {"accuracy": 100.0, "n": 1}, "all": {"accuracy": 66.67, "n": 3}}
    one = evaluate([ColourMethod()], "aro", 1, data=tmp_path / "visual_genome_relation.json", progress=NO_BAR)
    assert points(one["colour"]) == {"VG-Relation": {"accuracy": 100.0, "n": 1, "kinds": 1},
                                     "VG-Relation pooled": {"accuracy": 100.0, "n": 1},
                                     "all": {"accuracy": 100.0, "n": 1}}

    write_json(tmp_path / "visual_genome_attribution.json", [{"image_path": "3.jpg", "bbox_x": 0, "bbox_y": 0}])
    with pytest.raises(DatasetError, match=r"visual_genome_attribution\.json: item 0 has no field 'bbox_w'"):
        load_items("aro", tmp_path)
    write_json(tmp_path / "visual_genome_attribution.json", [aro_row("3.jpg", (0, "top", 4, 4), "a", "b")])
    with pytest.raises(DatasetError, match=r"item 0: field 'bbox_y' should be a number"):
        load_items("aro", tmp_path)
    write_json(tmp_path / "visual_genome_attribution.json", {"not": "a list"})
    with pytest.raises(DatasetError, match=r"visual_genome_attribution\.json: expected a list"):
        load_items("aro", tmp_path)


def test_aro_large_image_is_cropped_in_original_pixels(tmp_path):
    """Boxes are in the file's pixels: the crop happens before the image is downscaled."""
    two_colour(tmp_path / "images" / "big.png", split=1500, size=(2400, 100))
    write_json(tmp_path / "visual_genome_relation.json", [aro_row("big.png", (1000, 0, 400, 100), "red", "blue")])
    assert load_items("aro", tmp_path)[0].images[0].load().size == (400, 100)
    assert evaluate([ColourMethod()], "aro", None, data=tmp_path, progress=NO_BAR)["colour"]["all"]["accuracy"] == 100.0


# ---------------------------------------------------------------- reports


def test_write_reports(tmp_path):
    root = sugarcrepe(tmp_path / "sc")
    results = evaluate([ColourMethod(), LengthMethod()], "sugarcrepe", None, data=root)  # default tqdm bar
    report = {"benchmark": "sugarcrepe", "model": "fake", "results": results}
    paths = write_reports(report, tmp_path / "out" / "sc.json")
    assert [p.name for p in paths] == ["sc.json", "sc.csv", "sc.html"] and all(p.is_file() for p in paths)
    assert json.loads(paths[0].read_text()) == report

    csv = pd.read_csv(paths[1])
    assert list(csv.columns) == ["method", "category", "metric", "value", "low", "high", "n"]
    assert len(csv) == 2 * 3  # 2 methods x (add_obj, swap_att, all) x accuracy: the intervals are columns, not rows
    row = csv[(csv.method == "colour") & (csv.category == "all")].iloc[0]
    assert (row.metric, row.value, row.n) == ("accuracy", 66.67, 3)
    assert [row.low, row.high] == report["results"]["colour"]["all"]["ci"]["accuracy"]

    html = paths[2].read_text()
    assert "<script src=\"http" not in html and len(html) > 1_000_000  # plotly.js embedded, works offline
    assert "swap_att" in html and "length" in html and '"error_y"' in html.replace("'", '"')  # interval bars


def test_report_frame_flattens_splits_and_pairs():
    results = {"global": {"id": {"attribute": {"text": 50.0, "image": 25.0, "group": 0.0, "n": 4}}}}
    frame = report_frame(results)
    assert frame.category.tolist() == ["id/attribute"] * 3
    assert frame.metric.tolist() == ["text", "image", "group"] and frame.n.tolist() == [4, 4, 4]
