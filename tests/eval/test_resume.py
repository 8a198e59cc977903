"""A rerun with the same ``--json`` reads a stored outcome back only where the item's content (its annotation and
its images' bytes), the model's weights, the methods and their options and the view are the same: after an edit the
second run's report equals a fresh run's, and says how many outcomes it read back and why the others were scored."""

import json
import shutil

import pytest
from layout_fixtures import eqben
from PIL import Image

from explorer.cli import main

FILE = "eqben_subset_10percent_final.json"


def run(data, out, *extra) -> dict:
    assert main(["eval", "--benchmark", "eqben", "--data", str(data), "--json", str(out), *extra]) == 0
    return json.loads(out.read_text())


def fresh(data, tmp_path, *extra) -> dict:
    """The report of a run with nothing stored before it."""
    folder = tmp_path / "fresh"
    shutil.rmtree(folder, ignore_errors=True)
    return run(data, folder / "out.json", *extra)


@pytest.fixture
def first(tmp_path):
    root = eqben(tmp_path / "eqben")
    report = run(root, tmp_path / "runs" / "out.json")
    assert report["resumed"] == {"read back": 0, "not in the file": 12}
    return root, report


def test_an_unchanged_rerun_reads_every_outcome_back(tmp_path, first):
    root, report = first
    again = run(root, tmp_path / "runs" / "out.json")
    assert again["results"] == report["results"] and again["resumed"] == {"read back": 12}


def test_edited_annotations_are_scored_again_as_a_fresh_run(tmp_path, first):
    root, report = first
    rows = json.loads((root / FILE).read_text())
    for row in rows[:4]:  # the first part's first caption is its second: no text score there
        row["caption0"] = row["caption1"]
    (root / FILE).write_text(json.dumps(rows))
    again = run(root, tmp_path / "runs" / "out.json")
    assert again["results"] == fresh(root, tmp_path)["results"] != report["results"]
    assert again["resumed"]["its content changed"] == 4 and again["resumed"]["read back"] == 0
    assert sum(again["resumed"].values()) == 12  # one chunk: the unchanged items are scored again with it


def test_an_image_replaced_at_the_same_path_is_scored_again(tmp_path, first):
    root, report = first
    assert report["results"]["global"]["eqbenkubric_attr"]["text"] > 0
    for i in range(4):  # each item's first picture is now its second: no caption tells them apart
        folder = root / "image_subset" / "eqbenkubric_attr"
        Image.open(folder / f"{i}_1.png").save(folder / f"{i}_0.png")
    again = run(root, tmp_path / "runs" / "out.json")
    assert again["results"] == fresh(root, tmp_path)["results"] != report["results"]
    assert again["results"]["global"]["eqbenkubric_attr"]["text"] == 0
    assert again["resumed"]["its content changed"] == 4


def test_another_view_or_option_is_not_read_back(tmp_path, first):
    root, _ = first
    again = run(root, tmp_path / "runs" / "out.json", "--view", "whole")
    assert again["resumed"] == {"read back": 0, "the run's view changed": 12}
    assert again["view"] == "whole: asked" and again["results"] == fresh(root, tmp_path, "--view", "whole")["results"]
    assert "authors' script" in run(root, tmp_path / "runs" / "out.json")["view"]
