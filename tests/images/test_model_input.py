"""What the model's global score sees: the picture the view and open_clip's preprocess make, the box of the original
it shows, and the sentence that says what was cut or padded."""

import numpy as np
import pytest
import torch
from PIL import Image, ImageDraw
from skimage import data

from explorer.images.crops import Preprocessing
from explorer.images.model_input import geometry, model_input


@pytest.mark.parametrize("size", [(300, 300), (640, 400), (400, 640), (1024, 260)])
def test_the_picture_is_the_preprocess_tensor_before_normalisation(embedded, random_vit, size):
    image = Image.fromarray(data.astronaut()).resize(size)
    for encoder in (embedded, random_vit):
        tensor = encoder.preprocess(image)
        mean, std = (torch.tensor(v).view(3, 1, 1) for v in (encoder.preprocessing.mean, encoder.preprocessing.std))
        want = (tensor * std + mean).permute(1, 2, 0).numpy() * 255
        seen = model_input(image, encoder, "raw")
        got = np.asarray(seen.picture, dtype=np.float64)
        assert got.shape == want.shape and np.abs(got - want).max() <= 1.0 + 1e-3, (encoder.label, size)


def test_the_note_says_what_is_cut(embedded):
    side = embedded.image_size
    wide = model_input(Image.new("RGB", (640, 400)), embedded, "raw")
    x0, y0, x1, y1 = wide.box  # the middle 400 x 400, within the pixel or two the resize's rounding moves it
    assert (y0, y1) == (0, 400) and abs(x0 - 120) <= 2 and abs(640 - x1 - 120) <= 2 and abs(x1 - x0 - 400) <= 2
    assert f"of 640 are cut: the model sees the middle {x1 - x0} x 400, resized to {side} x {side}" in wide.note
    tall = model_input(Image.new("RGB", (400, 640)), embedded, "raw")
    assert tall.box[0::2] == (0, 400) and "top" in tall.note and "bottom" in tall.note
    square = model_input(Image.new("RGB", (300, 300)), embedded)
    assert square.box == (0, 0, 300, 300) and square.note.startswith("nothing is cut")


def test_padding_and_squashing_cut_nothing():
    base = dict(interpolation="bicubic", mean=(0.5,) * 3, std=(0.5,) * 3, pad_fill=0)
    longest = geometry((640, 400), Preprocessing((112, 112), resize_mode="longest", **base))
    squash = geometry((640, 400), Preprocessing((112, 112), resize_mode="squash", **base))
    assert not longest.cut and "padded to 112 x 112" in longest.note
    assert not squash.cut and squash.note == "nothing is cut: the whole 640 x 400 is resized to 112 x 112"


def _red_square_near_the_left() -> Image.Image:
    """An 80 px red square near the left of a slide, and a blue one near its right."""
    picture = Image.new("RGB", (640, 400), (128, 128, 128))
    ImageDraw.Draw(picture).rectangle((20, 160, 99, 239), fill=(220, 30, 30))
    ImageDraw.Draw(picture).rectangle((540, 160, 619, 239), fill=(30, 30, 220))
    return picture


def _red(picture: Image.Image) -> np.ndarray:
    pixels = np.asarray(picture).astype(int)
    return (pixels[:, :, 0] - pixels[:, :, 1]) > 40


def test_an_object_near_the_side_of_a_wide_picture_is_inside_the_models_input(embedded):
    """The default view pads the wide picture to a square with its own grey: every column of the square reaches
    the model, and the note says so."""
    seen = model_input(_red_square_near_the_left(), embedded)
    assert seen.box == (0, -120, 640, 520) and seen.fill == (128, 128, 128)
    assert seen.note.startswith("the whole 640 x 400 picture is read, padded above and below to a 640 x 640 square")
    red = _red(seen.picture)
    cols = np.flatnonzero(red.any(axis=0))
    side = embedded.image_size  # 20..99 of 640 -> about 4..20 of 128
    assert red.sum() > 100 and cols[0] <= round(21 * side / 640) + 1 and cols[-1] >= round(98 * side / 640) - 1


def test_the_raw_view_cuts_it_as_the_preprocess_always_has(embedded):
    seen = model_input(_red_square_near_the_left(), embedded, "raw")
    assert seen.box[0] > 99  # every column of the square is cut
    assert not _red(seen.picture).any()  # no red reaches the model's input
