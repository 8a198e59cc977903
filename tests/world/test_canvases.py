"""The looks the view of a picture is chosen and reported on: wide and portrait canvases with objects near their
sides, small shapes, and the naming items (a shape told from one other shape, a colour from one other colour)."""

import numpy as np
import pytest

from explorer import world
from explorer.world.canvases import ASPECTS, PAPERS, SHORT_SIDE

RATIOS = {round(w / h, 3) for pairs in ASPECTS.values() for w, h in pairs}


@pytest.mark.parametrize("split", ["wide", "val-wide"])
def test_wide_canvases_take_every_proportion_and_reach_their_sides(split):
    items = world.swap_items(split, "attribute", 40)
    sizes = {it.pictures()[0].size for it in items}
    assert {round(w / h, 3) for w, h in sizes} == {round(w / h, 3) for w, h in ASPECTS["wide"]}
    assert all(min(s) == SHORT_SIDE for s in sizes)
    near_side = 0
    for item in items:
        picture = item.images[0]
        masks = picture.masks()
        assert masks.shape[0] == 2 and all(m.any() for m in masks)
        w, h = picture.look.size
        for mask in masks:
            xs = np.nonzero(mask.any(axis=0))[0] if w > h else np.nonzero(mask.any(axis=1))[0]
            length, middle = max(w, h), min(w, h)  # the preprocess's centre crop keeps the middle square
            cut = (length - middle) // 2
            near_side += bool(xs.min() < cut or xs.max() >= length - cut)
    assert near_side >= 20  # objects the raw view's centre crop cuts into


def test_small_shapes_are_6_to_18_percent_of_the_shorter_side():
    for item in world.swap_items("small", "attribute", 30):
        picture = item.images[0]
        short = min(picture.look.size)
        for mask in picture.masks():
            ys, xs = np.nonzero(mask)
            extent = max(xs.max() - xs.min() + 1, ys.max() - ys.min() + 1) / short
            assert 0.04 <= extent <= 0.19, extent


def test_the_pictures_of_a_swap_share_a_look_and_every_colour_stands_out_from_its_paper():
    for item in world.swap_items("val-small", "attribute", 20) + world.swap_items("wide", "relation", 20):
        a, b = item.images
        assert a.look == b.look and a.look.paper in PAPERS
        drawn = np.asarray(a.render())
        assert drawn.shape[:2] == a.look.size[::-1]


def test_the_splits_draw_other_items_for_validation_and_for_the_report():
    assert [it.captions for it in world.swap_items("wide", "attribute", 5)] != \
        [it.captions for it in world.swap_items("val-wide", "attribute", 5)]
    again = world.swap_items("small", "object", 3)
    assert [np.asarray(it.pictures()[0]).tobytes() for it in again] == \
        [np.asarray(it.pictures()[0]).tobytes() for it in world.swap_items("small", "object", 3)]


@pytest.mark.parametrize("kind", world.NAMING_KINDS)
def test_a_naming_item_tells_its_object_from_one_other_by_shape_or_colour(kind):
    items = world.naming_items("wide", kind, 60)
    rights = []
    for item in items:
        own, other = item.captions[item.right[0]], item.captions[1 - item.right[0]]
        scene_object = item.images[0].objects[0]
        assert own == scene_object.phrase() and own != other
        same = scene_object.color if kind == "shape" else scene_object.shape
        assert same in other and (scene_object.shape if kind == "shape" else scene_object.color) not in other
        rights.append(item.right[0])
    assert 0.3 < np.mean(rights) < 0.7  # either caption first
    with pytest.raises(ValueError, match="unknown naming kind"):
        world.naming_items("wide", "size", 1)
