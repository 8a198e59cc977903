"""An item's cosines as a heat map: two models on one colour scale, each image's own caption boxed, captions shown as
typed."""

import numpy as np

from explorer.figures.item_figures import cosine_grid, cosine_span


def test_two_readings_share_one_scale_and_box_each_images_own_caption():
    a = np.array([[0.83, 0.79], [0.82, 0.80]])
    b = np.array([[0.85, 0.74], [0.75, 0.86]])
    span = cosine_span(a, b)
    assert span == (0.74, 0.86)
    fig = cosine_grid(b, ["<b>a white square</b>", "a green square"], (0, 1), "B: a model's name " * 6, span)
    heat = fig.data[0]
    assert (heat.zmin, heat.zmax) == span and np.array_equal(np.asarray(heat.z), b)
    assert list(heat.x) == ["image 0", "image 1"] and heat.y[0].startswith("0: &lt;b&gt;a white")  # text, not markup
    boxes = [(s.x0, s.y0) for s in fig.layout.shapes]
    assert boxes == [(-0.5, -0.5), (0.5, 0.5)]  # image 0's caption 0, image 1's caption 1
    assert "<br>" in fig.layout.title.text  # a long title wraps to a phone's width
