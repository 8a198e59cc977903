"""Image B made from image A and two captions: the world's own swap redrawn, the 2 x 2 scored, and a reason where B
cannot be made."""

import numpy as np
import pytest
from PIL import Image, ImageDraw

from explorer import world
from explorer.engine import Engine
from explorer.engine.propose import propose
from explorer.engine.swap import phrases, swap, two_by_two
from explorer.eval.accuracy import SWAP_SCORES
from explorer.images.inputs import load_image
from explorer.world.examples import examples
from explorer.world.tour import EXAMPLE


@pytest.fixture(scope="module")
def engine(embedded):
    return Engine(embedded, ["global", "sgi"])


def test_captions_read_as_the_world_objects_they_name():
    assert phrases("A large Red circle and a blue square") == [("red", "circle"), ("blue", "square")]
    assert phrases("a dog on a sofa") == []


@pytest.mark.parametrize("split", ["id", "style", "drawn-white"])
def test_image_b_is_the_worlds_own_swap_redrawn(engine, split):
    for item in world.swap_items(split, "attribute", 3):
        image_a, image_b = item.pictures()
        result = swap(engine, image_a, *item.captions)
        diff = np.abs(np.asarray(result.image_b, float) - np.asarray(image_b, float)).max(axis=-1)
        before = np.abs(np.asarray(image_a, float) - np.asarray(image_b, float)).max(axis=-1)
        assert (diff > 60).mean() < 0.25 * (before > 60).mean()  # most of what the swap changes, made; little else
        table = result.table()
        assert list(table.columns[-3:]) == list(SWAP_SCORES) and len(table) == 2
        own = two_by_two(result.analysis_a, engine.analyze(image_b, *item.captions))
        assert {m: o.correct for m, o in result.outcomes().items()}.keys() == own.keys()


def test_a_shape_swap_is_redrawn_in_the_other_shapes(engine, embedded):
    for item in world.swap_items("id", "object", 3):
        result = swap(engine, item.pictures()[0], *item.captions)
        named = sorted((o.color, o.shape) for o in propose(embedded, result.image_b).objects)
        assert named == sorted(o.combo for o in item.images[1].objects)  # the world model reads caption B's objects


def test_the_table_reads_the_2x2_by_winogrounds_rules(engine):
    item = world.swap_items("id", "attribute", 1)[0]
    result = swap(engine, item.pictures()[0], *item.captions)
    for (_, row), (name, found) in zip(result.table().iterrows(), result.outcomes().items()):
        s = lambda i, c: (result.analysis_a, result.analysis_b)[i].scores[name][c].value  # noqa: E731
        text = s(0, 0) > s(0, 1) and s(1, 1) > s(1, 0)
        image = s(0, 0) > s(1, 0) and s(1, 1) > s(0, 1)
        assert (row["text"], row["image"], row["group"]) == (text, image, text and image)


def _two_squares() -> Image.Image:
    image = Image.new("RGB", (128, 128), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((15, 40, 55, 80), fill=world.COLORS["red"])
    draw.rectangle((75, 40, 115, 80), fill=world.COLORS["blue"])
    return image


@pytest.mark.parametrize("caption_a, caption_b, said", [
    ("a red square and a blue square", "a red square and a blue square", "are the same"),
    ("a red square and a blue square", "a blue square to the left of a red square", "name the same objects"),
    ("a dog and a cat", "a cat and a dog", "names none of the world's objects"),
    ("a green star and a blue square", "a blue star and a green square", "which the picture does not show"),
    ("a red square", "a red square and a blue square", "names 1 objects and caption B 2"),
])
def test_b_that_cannot_be_made_is_refused_with_the_reason(engine, caption_a, caption_b, said):
    with pytest.raises(ValueError, match=said):
        swap(engine, _two_squares(), caption_a, caption_b)


def test_a_photo_and_an_empty_canvas_are_refused(engine):
    noise = Image.fromarray(np.random.default_rng(0).integers(0, 256, (128, 128, 3), dtype=np.uint8))
    with pytest.raises(ValueError, match="looks like a photo"):
        swap(engine, noise, "a red square", "a blue square")
    with pytest.raises(ValueError, match="No objects"):
        swap(engine, Image.new("RGB", (128, 128), "white"), "a red square", "a blue square")


def test_one_object_recoloured_and_a_shape_redrawn(engine):
    result = swap(engine, _two_squares(), "a red square", "a green square")
    pixels = np.asarray(result.image_b)
    assert tuple(pixels[60, 35]) == world.COLORS["green"] and tuple(pixels[60, 95]) == world.COLORS["blue"]
    reshaped = swap(engine, _two_squares(), "a red square and a blue square", "a red circle and a blue square")
    corner, centre = np.asarray(reshaped.image_b)[42, 17], np.asarray(reshaped.image_b)[60, 35]
    assert tuple(corner) == (255, 255, 255) and tuple(centre) == world.COLORS["red"]
    assert reshaped.changed == ("the red square made a red circle",)


def test_the_tour_example_fails_both_sides_by_the_global_cosine_and_passes_by_sgi(engine):
    example = next(e for e in examples() if e.name == EXAMPLE)  # the guided tour's step 6 says so of it
    found = swap(engine, load_image(example.path), example.caption_a, example.caption_b).outcomes()
    assert not found["global"].text and not found["global"].image and found["sgi"].correct
