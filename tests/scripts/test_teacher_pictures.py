"""scripts/teacher_pictures.py: the val and test sets apart, each picture's truth on its ink, and the record of
docs/results/teacher-pictures.json against its own pictures and the drawings page."""

import json
import runpy
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


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


@pytest.mark.parametrize("index, side", [(12, 400), (18, 640)])
def test_crayon_with_paper_through_its_grain_is_read_as_a_page_each_shape_one_object(teacher, index, side):
    """Two of the val set's small crayon drawings (an orange triangle and a green square; a black star and a blue
    triangle): a plain reading finds pieces of them, no more than a caption names; the paper through their grain (a
    fifth and more of what their ink covers) makes them read as a page, where each shape is one object."""
    from explorer.images import ink
    from explorer.images.ink import fills_alone, ink_objects, on_paper

    *_, (_, _, image, truth) = teacher.pictures("val", index + 1, ("crayon",))
    paper = on_paper(image)
    assert image.size == (side, side) and ink._grainy(image, paper)
    plain = fills_alone(ink._read(image, paper, False))
    assert len(plain.objects) not in (0, 2) and len(plain.objects) <= ink.MOST_MARKS
    found = fills_alone(ink_objects(image))
    assert found.page and len(found.objects) == 2
    for obj in truth:
        assert any(o.box[0] <= obj.centre[0] < o.box[2] and o.box[1] <= obj.centre[1] < o.box[3]
                   for o in found.objects)


def test_the_record_is_its_pictures_and_the_drawings_page_shows_it():
    record = json.loads((ROOT / "docs" / "results" / "teacher-pictures.json").read_text())
    assert record["pictures_of"] == "teacher" and record["set"] == "test" and record["per_look"] >= 16
    page = (ROOT / "docs" / "drawings.md").read_text()
    section = page[page.index("## Pictures as teachers bring them"):]
    section = section.split("\n## ")[0]
    for look, row in record["looks"].items():
        mine = [p for p in record["pictures"] if p["look"] == look]
        assert row["pictures"] == len(mine) == record["per_look"]
        assert row["named"] == sum(p["named"] for p in mine)
        assert row["on_object"] == sum(sum(p["on_object"]) for p in mine)
        assert row["sgi_prefers_true"] == sum(p["sgi_prefers_true"] for p in mine)
        shown = (f"| {row['pictures']} | {row['named_share']:.0%} | {row['on_object_share']:.0%} "
                 f"({row['on_object']} of {row['segments']}) | {row['sgi_prefers_true']} of {row['pictures']} |")
        line = next(line for line in section.splitlines() if line.startswith("|") and any(
            word.startswith(look) for word in line.split("|")[1].replace("-", "").split()))  # "lined", not "outlined"
        assert line.endswith(shown), look


def test_crayon_read_on_the_pages_smaller_copy_is_named_in_its_waxs_colour(teacher, embedded):
    """A val set's 2000 px crayon drawing (a green star and a red square), read as the page reads an upload (a 1024
    px copy, where the grain blends the wax with the paper in most pixels: the square's median ink is a washed red,
    read as white or orange): each object's colour is its strongest ink's, its inside named in it."""
    from explorer.engine.propose import propose
    from explorer.images.inputs import normalize_image

    *_, (_, _, image, truth) = teacher.pictures("val", 4, ("crayon",))
    copy = normalize_image(image)
    assert image.size == (2000, 2000) and copy.size == (1024, 1024)
    named = sorted((o.color, o.shape) for o in propose(embedded, copy).objects)
    assert named == sorted((o.color, o.shape) for o in truth) == [("green", "star"), ("red", "square")]
