"""scripts/teacher_pictures.py: the val and test sets apart, and each picture's truth on its ink."""

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

