"""scripts/teacher_pictures.py and its record (docs/results/teacher-pictures.json, made by scripts/marker_measure.py
--pictures teacher): the val and test sets apart, each picture's truth on its ink, and the record meeting its bars."""

import json
import runpy
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "docs" / "results" / "teacher-pictures.json"


@pytest.fixture(scope="module")
def teacher():
    return SimpleNamespace(**runpy.run_path(str(ROOT / "scripts" / "teacher_pictures.py"), run_name="teacher"))


def test_the_sets_share_no_picture_and_each_truth_lies_on_its_ink(teacher):
    looks = ("clipart", "lined", "overlap")  # the quick looks; the slide, photo and crayon are drawn by the record
    val = {look: np.asarray(image) for look, _, image, _ in teacher.pictures("val", 1, looks)}
    test = list(teacher.pictures("test", 1, looks))
    assert {look for look, *_ in test} == set(looks)
    for look, _, image, truth in test:
        pixels = np.asarray(image)
        assert pixels.shape != val[look].shape or not np.array_equal(pixels, val[look])
        assert 300 <= max(image.size) <= 4000 and len(truth) == 2
        for obj in truth:  # its box holds its centre and ink far from the paper
            x0, y0, x1, y1 = obj.box
            assert x0 <= obj.centre[0] < x1 and y0 <= obj.centre[1] < y1
            assert np.abs(pixels[y0:y1, x0:x1].astype(int) - pixels[0, -1]).sum(-1).max() > 100
    again = list(teacher.pictures("test", 1, looks))
    assert all(np.array_equal(np.asarray(a[2]), np.asarray(b[2])) for a, b in zip(test, again))


def test_the_record_meets_the_bars_on_every_look_and_its_figures_are_its_pictures(teacher):
    record = json.loads(RECORD.read_text())
    assert record["set"] == "test" and record["pictures_of"] == "teacher" and record["per_look"] >= 16
    assert set(record["looks"]) == set(teacher.LOOKS)
    for look, row in record["looks"].items():
        mine = [p for p in record["pictures"] if p["look"] == look]
        assert row["pictures"] == len(mine) == record["per_look"]
        assert row["named"] == sum(p["named"] for p in mine)
        assert row["on_object"] == sum(sum(p["on_object"]) for p in mine)
        assert row["sgi_prefers_true"] == sum(p["sgi_prefers_true"] for p in mine)
        assert row["named"] >= 0.95 * row["pictures"], look
        assert row["sgi_prefers_true"] >= 0.95 * row["pictures"], look
        assert row["on_object"] >= 0.9 * row["segments"], look


def test_the_drawings_page_shows_the_record():
    record = json.loads(RECORD.read_text())
    page = (ROOT / "docs" / "drawings.md").read_text()
    assert record["command"] in page
    for look, row in record["looks"].items():
        cells = next(line for line in page.splitlines() if line.startswith(f"| {look} "))
        assert cells.split("|")[3:6] == [
            f" {row['named_share']:.0%} ", f" {row['sgi_prefers_true']} of {row['pictures']} ",
            f" {row['on_object_share']:.0%} ({row['on_object']} of {row['segments']}) "], look
