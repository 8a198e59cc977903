"""scripts/marker_drawings.py and scripts/marker_measure.py: the tune and test sets apart, each picture's truth on its
ink, and the record of docs/results/marker-drawings.json against its own pictures and a sample read again."""

import json
import runpy
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "docs" / "results" / "marker-drawings.json"


@pytest.fixture(scope="module")
def drawings():
    return SimpleNamespace(**runpy.run_path(str(ROOT / "scripts" / "marker_drawings.py"), run_name="marker_drawings"))


@pytest.fixture(scope="module")
def measure():
    return SimpleNamespace(**runpy.run_path(str(ROOT / "scripts" / "marker_measure.py"), run_name="marker_measure"))


def test_the_sets_share_no_picture_and_each_is_made_again_alike(drawings):
    tune = {look: np.asarray(image) for look, i, image, _ in drawings.pictures("tune", 1)}
    test = list(drawings.pictures("test", 1))
    assert {look for look, *_ in test} == {look.name for look in drawings.LOOKS} == set(tune)
    for look, _, image, truth in test:
        pixels = np.asarray(image)
        assert pixels.shape != tune[look].shape or not np.array_equal(pixels, tune[look])
        assert (image.width, image.height) == next(lk.size for lk in drawings.LOOKS if lk.name == look)
        paper = pixels[0, 0].astype(int)
        for obj in truth:  # its box holds its ink and its centre; the paper shows around it
            x0, y0, x1, y1 = obj.box
            assert x0 <= obj.centre[0] < x1 and y0 <= obj.centre[1] < y1
            assert np.abs(pixels[y0:y1, x0:x1].astype(int) - paper).sum(-1).max() > 100
    again = list(drawings.pictures("test", 1))
    assert all(np.array_equal(np.asarray(a[2]), np.asarray(b[2])) for a, b in zip(test, again))


def test_a_region_holds_its_object_only_with_its_centre_alone_and_at_most_six_times_its_size(drawings, measure):
    red = drawings.Drawn("red", "square", (50.0, 50.0), (40, 40, 60, 60))
    blue = drawings.Drawn("blue", "circle", (150.0, 50.0), (140, 40, 160, 60))
    assert measure.holds((35, 35, 65, 65), red, blue)
    assert not measure.holds((0, 0, 200, 100), red, blue)  # both centres
    assert not measure.holds((0, 0, 100, 100), red, blue)  # 25 times the square
    assert not measure.holds((55, 35, 85, 65), red, blue)  # a piece, not its centre
    assert measure.swapped([red, blue]) == "a blue square and a red circle"


def test_the_record_meets_the_bars_and_its_figures_are_its_pictures():
    record = json.loads(RECORD.read_text())
    assert record["set"] == "test" and record["per_look"] >= 24
    for look, row in record["looks"].items():
        mine = [p for p in record["pictures"] if p["look"] == look]
        assert row["pictures"] == len(mine) == record["per_look"]
        assert row["named"] == sum(p["named"] for p in mine)
        assert row["on_object"] == sum(sum(p["on_object"]) for p in mine)
        assert row["segments"] == sum(len(p["on_object"]) for p in mine) == 2 * len(mine)
        assert row["named"] >= 0.95 * row["pictures"] and row["on_object"] >= 0.9 * row["segments"], look


def test_a_sample_of_the_record_reads_the_same_again(drawings, measure, embedded):
    """A slide and a small-shapes page of the test set, read again as the record was made."""
    record = json.loads(RECORD.read_text())
    engine = measure.Engine(embedded, ["global", "sgi"])
    for look, i, image, truth in drawings.pictures("test", 1, tuple(lk for lk in drawings.LOOKS
                                                                    if lk.name in ("slide", "page"))):
        found = measure.read(engine, image, truth)
        said = next(p for p in record["pictures"] if (p["look"], p["index"]) == (look, i))
        assert (found["named"], found["on_object"], found["sgi_prefers_true"]) == (
            said["named"], said["on_object"], said["sgi_prefers_true"])


def test_the_drawings_page_shows_the_record():
    record = json.loads(RECORD.read_text())
    page = (ROOT / "docs" / "drawings.md").read_text()
    for look, row in record["looks"].items():
        w, h = record["sizes"][look]
        cells = next(line for line in page.splitlines() if line.startswith("|") and f"{w} x {h} |" in line)
        assert cells.split("|")[2:6] == [
            f" {row['pictures']} ", f" {row['named_share']:.0%} ",
            f" {row['on_object_share']:.0%} ({row['on_object']} of {row['segments']}) ",
            f" {row['sgi_prefers_true']} of {row['pictures']} "], look
