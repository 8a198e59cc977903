"""The page's "What the model sees": the part the preprocess cuts greyed, the part it keeps as it is."""

import numpy as np
from PIL import Image

from explorer.drawing import display


def test_the_kept_box_keeps_its_colours_and_the_cut_sides_are_grey():
    rng = np.random.default_rng(0)
    image = Image.fromarray(rng.integers(0, 256, (400, 640, 3), dtype=np.uint8))
    shown = np.asarray(display.model_view(image, (120, 0, 520, 400))).astype(int)
    plain = np.asarray(display.display_image(image)[0]).astype(int)
    f = display.DISPLAY_SIDE / 640
    x0, x1 = round(120 * f), round(520 * f)
    assert shown.shape == plain.shape
    assert np.array_equal(shown[:, x0:x1], plain[:, x0:x1])  # inside the box: the picture's own colours
    for side in (shown[:, : x0 - 4], shown[:, x1 + 4 :]):
        assert np.array_equal(side[..., 0], side[..., 1]) and np.array_equal(side[..., 1], side[..., 2])  # grey
    assert (shown[:, x0 - 1] < 60).all() and (shown[:, x1] < 60).all()  # a dark line just outside the box


def test_nothing_cut_shows_the_picture_as_it_is():
    image = Image.new("RGB", (300, 300), (200, 30, 30))
    assert np.array_equal(np.asarray(display.model_view(image, (0, 0, 300, 300))), np.asarray(display.display_image(image)[0]))
