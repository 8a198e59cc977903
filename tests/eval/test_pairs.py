"""Your own pairs as a benchmark: CSV or JSON Lines, bad rows named by line and field, the rest scored as the page
scores them."""

import csv
import io
import json

import pytest
from PIL import Image

from explorer import world
from explorer.cli import main
from explorer.eval.benchmark_registry import load_items
from explorer.eval.dataset_loaders import DatasetError
from explorer.eval.pairs import read_pairs


def scenes(folder, n: int = 6) -> list[tuple[str, str, str, str]]:
    """``n`` world attribute swaps drawn to files: (image, image_b, caption A, caption B)."""
    rows = []
    for i, item in enumerate(world.swap_items("id", "attribute", n)):
        names = [f"s{i}-{k}.png" for k in (0, 1)]
        for name, scene in zip(names, item.images):
            scene.render(128).save(folder / name)
        rows.append((*names, *item.captions))
    return rows


def test_a_csv_loads_its_good_rows_and_names_each_bad_one_by_line_and_field(tmp_path):
    (tmp_path / "notes.png").write_text("not an image")
    good = scenes(tmp_path, 2)
    lines = ["image,caption_a,caption_b,category",
             f"{good[0][0]},{good[0][2]},{good[0][3]},colour",
             f"gone.png,{good[0][2]},{good[0][3]},colour",
             f"{good[0][0]},,{good[0][3]},colour",
             f"notes.png,{good[0][2]},{good[0][3]},colour",
             f"{good[1][0]},a red square,A  red square,",
             f'{good[1][0]},"{good[1][2]}, on grey","{good[1][3]}",']
    path = tmp_path / "pairs.csv"
    path.write_text("\n".join(lines) + "\n")
    items, bad = read_pairs(path)
    assert [it.id for it in items] == ["line 2", "line 7"] and all(len(it.images) == 1 for it in items)
    assert [it.category for it in items] == ["colour", "pairs"] and items[1].captions[0].endswith(", on grey")
    assert [(b.line, b.field) for b in bad] == [(3, "image"), (4, "caption_a"), (5, "image"), (6, "caption_b")]
    assert "no image file at" in bad[0].problem and "gone.png" in str(bad[0])
    assert "not an image" in bad[2].problem and "the same as caption_a" in bad[3].problem
    assert str(bad[1]) == "line 4, field 'caption_a': Caption A is empty: type a caption."


def test_jsonl_with_two_images_is_a_swap_file_and_other_kinds_are_left_out(tmp_path):
    good = scenes(tmp_path, 2)
    rows = [json.dumps({"image": good[0][0], "image_b": good[0][1], "caption_a": good[0][2], "caption_b": good[0][3]}),
            "{not json",
            json.dumps(["a list"]),
            json.dumps({"image": good[1][0], "caption_a": good[1][2], "caption_b": good[1][3]}),
            "",
            json.dumps({"image": good[1][0], "image_b": good[1][1], "caption_a": 3, "caption_b": good[1][3]})]
    path = tmp_path / "pairs.jsonl"
    path.write_text("\n".join(rows) + "\n")
    items, bad = read_pairs(path)
    assert len(items) == 1 and len(items[0].images) == 2 and items[0].captions == tuple(good[0][2:])
    assert [(b.line, b.field) for b in bad] == [(2, "(row)"), (3, "(row)"), (4, "image_b"), (6, "caption_a")]
    assert "not valid JSON" in bad[0].problem and "a one-image pair in a file of two-image pairs" in bad[2].problem


def test_a_file_it_cannot_read_as_pairs_says_why(tmp_path):
    (tmp_path / "p.csv").write_text("picture,caption\nx.png,a cat\n")
    with pytest.raises(DatasetError, match="header row lacks image, caption_a, caption_b"):
        read_pairs(tmp_path / "p.csv")
    (tmp_path / "p.txt").write_text("x")
    with pytest.raises(DatasetError, match=r"a \.csv file with a header row or a \.jsonl file"):
        read_pairs(tmp_path / "p.txt")
    (tmp_path / "none.csv").write_text("image,caption_a,caption_b\nx.png,a,b\n")
    with pytest.raises(DatasetError, match="no usable row"):
        load_items("pairs", tmp_path / "none.csv")


def test_eval_on_own_pairs_names_the_bad_rows_and_scores_the_rest_as_the_page_does(tmp_path, embedded, caplog):
    from explorer.engine import Engine

    good = scenes(tmp_path, 6)
    lines = ["image,caption_a,caption_b"] + [f"{row[0]},{row[2]},{row[3]}" for row in good]
    lines.insert(3, f"gone.png,{good[0][2]},{good[0][3]}")
    path = tmp_path / "mine.csv"
    path.write_text("\n".join(lines) + "\n")
    out = tmp_path / "mine.json"
    assert main(["eval", "--benchmark", "pairs", "--data", str(path), "--methods", "global,sgi",
                 "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["skipped"] == ["line 4, field 'image': no image file at 'gone.png' (a path relative to the pairs "
                                 "file)"]  # the file's own words: no server path
    assert "skipped line 4, field 'image'" in caplog.text
    engine = Engine(embedded)
    for method in ("global", "sgi"):
        page = [engine.analyze(Image.open(tmp_path / row[0]).convert("RGB"), row[2], row[3]).scores[method]
                for row in good]
        right = [a.value > b.value for a, b in page]  # the page prefers caption A, the one that describes the image
        cell = report["results"][method]["pairs"]
        assert cell["n"] == 6 and cell["accuracy"] == round(100 * sum(right) / 6, 2), (method, right)
    assert 0 < report["results"]["global"]["pairs"]["accuracy"] < 100  # the rows tell the two apart


def test_eval_skips_a_bomb_and_a_cut_image_by_line_and_writes_formulas_as_text(tmp_path):
    from tests.core.test_data_roots import bomb_png

    good = scenes(tmp_path, 2)
    (tmp_path / "bomb.png").write_bytes(bomb_png())
    (tmp_path / "cut.png").write_bytes((tmp_path / good[0][0]).read_bytes()[:80])
    formula = '=HYPERLINK("http://example.invalid","open")'
    with (tmp_path / "mine.csv").open("w", newline="") as f:
        csv.writer(f).writerows([("image", "caption_a", "caption_b", "category"), (*good[0][::2], good[0][3], formula),
                                 ("bomb.png", *good[0][2:], "x"), ("cut.png", *good[0][2:], "x"),
                                 (good[1][0], *good[1][2:], "+sum")])
    out = tmp_path / "mine.json"
    assert main(["eval", "--benchmark", "pairs", "--data", str(tmp_path / "mine.csv"), "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert [s.split(":")[0] for s in report["skipped"]] == ["line 3, field 'image'", "line 4, field 'image'"]
    assert set(report["results"]["global"]) == {formula, "+sum", "all"}  # the report keeps the words as given
    cells = out.with_suffix(".csv").read_text()
    assert [row[1] for row in csv.reader(io.StringIO(cells))][1:3] == [f"'{formula}", "'+sum"]  # shown as text
    assert "\n=" not in cells and ",=" not in cells and ",+" not in cells


def test_a_bad_json_line_is_named_with_its_whole_message(tmp_path):
    (tmp_path / "p.jsonl").write_text('{"image": "a.png", "caption_a": "a red\tsquare", "caption_b": "b"}\n')
    _, bad = read_pairs(tmp_path / "p.jsonl")
    assert bad[0].problem == "not valid JSON (Invalid control character at column 39)"  # where, not a cut sentence
    (tmp_path / "w.json").write_text('[{"id": 1,}]')
    with pytest.raises(DatasetError, match=r"invalid JSON \(Expecting property name enclosed in double quotes at "
                                           r"line 1, column 11\)"):
        load_items("aro", tmp_path / "w.json")
