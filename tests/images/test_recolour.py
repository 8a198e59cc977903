"""Recolouring reaches the object's pixels the segmentation left out, and nothing else."""

import numpy as np
from PIL import Image, ImageDraw
from scipy import ndimage

from explorer import world
from explorer.images.objects import FoundObject, box_of
from explorer.images.recolour import recolour, reshape

RED, BLUE, WHITE = world.COLORS["red"], world.COLORS["blue"], (255, 255, 255)


def _drawing() -> tuple[Image.Image, FoundObject]:
    """A red square beside a blue one 6 px away, and the red one as the segmentation finds it: its mask 3 px short of
    its edge all round (segmented at a smaller size, its edge bands dropped as specks)."""
    image = Image.new("RGB", (120, 80), WHITE)
    draw = ImageDraw.Draw(image)
    draw.rectangle((20, 20, 59, 59), fill=RED)
    draw.rectangle((66, 20, 99, 59), fill=BLUE)
    red = (np.asarray(image) == RED).all(-1)
    mask = ndimage.binary_erosion(red, iterations=3)
    return image, FoundObject(mask, mask, box_of(mask), RED, WHITE)


def test_recolouring_turns_the_whole_object_and_leaves_its_neighbour_and_the_background():
    image, found = _drawing()
    before, after = np.asarray(image), np.asarray(recolour(image, found, world.COLORS["green"]))
    red = (before == RED).all(-1)
    assert (after[red] == world.COLORS["green"]).all()  # the rim the mask missed too: no red outline is left
    assert (after[~red] == before[~red]).all()  # the blue square 6 px away and the white background as they were


def test_reshaping_erases_the_whole_object_first():
    image, found = _drawing()
    after = np.asarray(reshape(image, found, "circle", world.COLORS["green"]))
    assert not (after == RED).all(-1).any()  # no red rim around the new circle
    assert (after[:, 64:] == np.asarray(image)[:, 64:]).all()  # the blue square untouched
