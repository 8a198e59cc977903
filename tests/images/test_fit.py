"""The view every method reads: a wide picture padded with its own background, a small drawing enlarged, the world's
scenes and square photos left as they are, and the methods' boxes and maps drawn back on the picture's frame."""

import numpy as np
import pytest
import torch
from PIL import Image, ImageDraw
from skimage import data

from explorer import world
from explorer.core import image_state
from explorer.drawing import display
from explorer.engine import Engine
from explorer.figures import viz
from explorer.images.crops import crop_batch, image_tensor
from explorer.images.fit import CONTENT_SHARE, fit_of, frame_of, view_state
from explorer.images.regions import fill_color, visible_extent
from explorer.methods import get_method
from explorer.methods.sgi.method import ZOOM_SHARE, zoom_window

PAPER = (250, 246, 228)


def _drawing(size, boxes) -> Image.Image:
    picture = Image.new("RGB", size, PAPER)
    draw = ImageDraw.Draw(picture)
    for box, colour in boxes:
        draw.rectangle(box, fill=colour)
    return picture


def test_a_wide_drawing_is_padded_with_its_own_background_and_nothing_is_cut():
    picture = _drawing((640, 360), [((10, 100, 130, 220), (220, 38, 38)), ((520, 100, 630, 210), (35, 85, 225))])
    fit = fit_of(picture)
    assert fit.how == "letterboxed" and fit.box == (0, -140, 640, 500) and fit.fill == PAPER
    seen = fit.picture(picture)
    assert seen.size == (640, 640) and seen.getpixel((5, 5)) == PAPER and seen.getpixel((20, 250)) == (220, 38, 38)
    assert fit_of(picture, "raw").box == (0, 0, 640, 360) and not fit_of(picture, "raw").changes


def test_a_small_drawing_is_cut_to_a_square_it_fills_the_chosen_share_of():
    picture = _drawing((480, 360), [((300, 50, 329, 79), (30, 160, 60))])  # a 30 px square, 8% of the short side
    fit = fit_of(picture)
    side = fit.box[2] - fit.box[0]
    assert fit.how == "content" and fit.box[3] - fit.box[1] == side
    assert abs(side - 32 / CONTENT_SHARE) <= 2  # the square's 30 px and the pixel of margin either side
    green = (np.asarray(fit.picture(picture)) == (30, 160, 60)).all(axis=-1)
    assert green.sum() == 30 * 30 and green.any(axis=0).sum() == 30  # all of it, at its own scale


def test_a_photo_is_never_cut_to_its_content_only_padded_when_it_is_not_square():
    photo = Image.fromarray(data.astronaut())  # 512 x 512
    assert fit_of(photo).how == "as is" and not fit_of(photo).changes
    wide = photo.resize((512, 300))
    assert fit_of(wide).how == "letterboxed"


def test_the_worlds_two_object_scenes_and_single_objects_are_left_as_they_are():
    for split in ("id", "style", "drawn-white", "drawn-dark"):
        for kind in world.KINDS:
            for item in world.swap_items(split, kind, 8):
                assert not any(fit_of(p).changes for p in item.pictures(128)), (split, kind)
        assert not any(fit_of(it.pictures(128)[0]).changes for it in world.single_items(split, 16)), split


def test_boxes_and_maps_of_a_view_land_on_the_pictures_own_frame():
    picture = _drawing((640, 360), [((10, 100, 129, 219), (220, 38, 38)), ((520, 100, 630, 210), (35, 85, 225))])
    state = view_state(picture)
    frame = frame_of(state)
    fit = frame.fit
    assert frame.picture is picture and state.image.size == (640, 640)
    red = (np.asarray(state.image) == (220, 38, 38)).all(axis=-1)
    ys, xs = np.nonzero(red)
    assert fit.box_to_frame((xs.min(), ys.min(), xs.max() + 1, ys.max() + 1)) == (10, 100, 130, 220)
    heat = red.astype(np.float32)
    back = fit.map_to_frame(heat)
    assert back.shape == (360, 640) and back[100:220, 10:130].all() and back.sum() == heat.sum()
    raw = view_state(picture, "raw")
    assert view_state(picture) is state and raw.image is picture and raw is not image_state.of(picture)
    assert raw.view == "raw" and state.view == "whole" and frame_of(raw) is None


def test_a_zoomed_mask_view_equals_the_window_cut_filled_and_preprocessed(embedded):
    """SGI's window around a small whole thing, made as tensor operations, against PIL: the window cut out of the
    frame, filled outside the box (and past the frame), then the model's own preprocess."""
    picture = _drawing((512, 512), [((40, 300, 69, 329), (220, 38, 38)), ((400, 60, 460, 120), (35, 85, 225))])
    fill = fill_color(picture)
    nonfill = (np.asarray(picture) != np.asarray(fill, dtype=np.uint8)).any(axis=-1)
    box = (0, 256, 256, 512)  # holds the red square whole, clear of its edges
    window = zoom_window(box, visible_extent(nonfill, box), picture.size)
    assert window is not None and abs((window[2] - window[0]) - 30 / ZOOM_SHARE) <= 1
    assert zoom_window((30, 290, 60, 320), visible_extent(nonfill, (30, 290, 60, 320)), picture.size) is None  # cut
    inside = (max(box[0], window[0]), max(box[1], window[1]), min(box[2], window[2]), min(box[3], window[3]))
    got = crop_batch(image_tensor(picture, "cpu"), [inside], "mask", fill, embedded.preprocessing, [window])[0]
    reference = Image.new("RGB", (window[2] - window[0], window[3] - window[1]), fill)
    reference.paste(picture.crop(inside), (inside[0] - window[0], inside[1] - window[1]))
    want = embedded.preprocess(reference)
    assert torch.allclose(got, want, atol=2.0 / 255 / min(embedded.preprocessing.std))


def test_sgi_enlarges_small_things_under_the_whole_view_only(embedded):
    picture = _drawing((512, 512), [((40, 300, 69, 329), (220, 38, 38))])
    ImageDraw.Draw(picture).ellipse((400, 60, 429, 89), fill=(35, 85, 225))  # two shapes 6% of the side, far apart
    sgi = get_method("sgi", embedded)
    captions = ["a red square and a blue circle", "a blue square and a red circle"]
    whole, raw = (sgi.score(view_state(picture, v), captions) for v in ("whole", "raw"))
    assert [s.value for s in whole] != [s.value for s in raw]
    assert whole[0].value > whole[1].value  # enlarged, each square's colour is read


def test_the_worlds_scenes_get_no_zoomed_views(embedded):
    sgi = get_method("sgi", embedded)
    for item in world.swap_items("id", "attribute", 6) + world.swap_items("style", "size", 6):
        for picture in item.pictures(embedded.image_size):
            fill = fill_color(picture)
            boxes, _ = sgi.distinct_boxes(picture, sgi.regions(picture), fill)
            assert not any(sgi.windows(picture, boxes, fill))


@pytest.mark.parametrize("view", ["whole", "raw"])
def test_the_engine_reads_the_view_and_draws_on_the_pictures_frame(embedded, view):
    picture = _drawing((640, 360), [((10, 100, 129, 219), (220, 38, 38)), ((520, 100, 630, 210), (35, 85, 225))])
    engine = Engine(embedded, ["global", "sgi", "tflocal"])
    analysis = engine.analyze(picture, "a red square and a blue square", "a blue square and a red square",
                              view=view)
    assert analysis.view == view and analysis.state is view_state(picture, view)  # the state it read, held
    if view == "whole":
        assert analysis.model_box == (0, -140, 640, 500) and "padded above and below" in analysis.model_input
    else:
        assert analysis.model_box[0] > 129 and "cut" in analysis.model_input
    figures = viz.page_figures(analysis)
    canvas, _ = display.display_image(picture)
    assert figures["tflocal A"].width >= canvas.width  # the picture's own frame (and the map beside it)
    overlay = np.asarray(figures["sgi overlay A"])[: canvas.height, : canvas.width]
    assert overlay.shape[:2] == (canvas.height, canvas.width)
    image_state.forget()  # the store emptied: the pictures are drawn from the state the analysis holds, none looked up
    again = viz.page_figures(analysis)
    assert len(image_state.STATES) == 0 and np.array_equal(np.asarray(again["sgi overlay A"]),
                                                           np.asarray(figures["sgi overlay A"]))


@pytest.mark.parametrize("view", ["whole", "raw"])
def test_the_evaluation_reads_the_view_setting(view, monkeypatch):
    from explorer.core import settings
    from explorer.eval import accuracy

    monkeypatch.setattr(settings, "current", lambda: settings.Settings(view=view))
    item = world.swap_items("wide", "attribute", 1)[0]
    states = accuracy._states(item, 128)
    sizes = {s.image.size for s in states}
    if view == "whole":
        assert all(w == h for w, h in sizes) and all(frame_of(s) for s in states)
    else:
        assert sizes == {item.images[0].look.size} and not any(frame_of(s) for s in states)
