"""Image regions (``explorer/images/regions.py``): multiscale crops cover the image, crop views keep their aspect, the
segmentation finds the world's objects, random regions are seeded."""

import numpy as np
import pytest
from PIL import Image

from explorer import world
from explorer.images.regions import crop_image, multiscale_crops, random_regions, segment_regions


@pytest.mark.parametrize("size", [(128, 128), (640, 480), (300, 900)])
def test_crops_cover_the_image_at_every_scale(size):
    w, h = size
    regions = multiscale_crops(w, h)
    assert regions[0].box == (0, 0, w, h) and regions[0].source == "image"
    # the published 86 to 270 crops per image; a 1:3 image has more windows along its long side (299)
    assert 86 <= len(regions) <= (270 if max(w, h) <= 2 * min(w, h) else 300), len(regions)
    sides = {}
    for r in regions[1:]:
        x0, y0, x1, y1 = r.box
        assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h
        sides.setdefault(x1 - x0, []).append(r.box)
    assert len(sides) >= 4
    for boxes in sides.values():  # each scale tiles the whole image
        covered = np.zeros((h, w), bool)
        for x0, y0, x1, y1 in boxes:
            covered[y0:y1, x0:x1] = True
        assert covered.all()


def test_crop_count_follows_scales_and_stride():
    few = multiscale_crops(128, 128, scales=(1.0, 0.5), stride=1.0)
    assert [r.box for r in few] == [(0, 0, 128, 128), (0, 0, 64, 64), (64, 0, 128, 64), (0, 64, 64, 128), (64, 64, 128, 128)]
    assert len(multiscale_crops(128, 128, stride=0.25)) > len(multiscale_crops(128, 128))
    with pytest.raises(ValueError):
        multiscale_crops(128, 128, scales=(0,))


def test_a_picture_of_extreme_proportions_has_the_windows_of_a_four_to_one_one():
    """A 1024 x 1 picture once had 1,025 one-pixel windows, a 1024 x 3 one 5,801: each a view through the tower."""
    assert len(multiscale_crops(1024, 1)) == len(multiscale_crops(1, 1024)) == 5  # 4 windows and the whole
    thin, wide = multiscale_crops(1024, 3), multiscale_crops(1024, 256)
    assert len(thin) <= len(wide) == 400 and len(multiscale_crops(1024, 100)) == len(wide)
    covered = np.zeros((3, 1024), bool)
    for x0, y0, x1, y1 in (r.box for r in thin):
        covered[y0:y1, x0:x1] = True
    assert covered.all()


def test_crops_keep_aspect_or_scale():
    im = Image.new("RGB", (100, 50), (10, 20, 30))
    im.paste((255, 0, 0), (10, 10, 30, 20))
    resized = crop_image(im, (10, 10, 50, 20), "resize", fill=(0, 0, 0))
    assert resized.size == (40, 40)  # padded to a square, not stretched
    masked = crop_image(im, (10, 10, 30, 20), "mask", fill=(1, 2, 3))
    assert masked.size == im.size
    a = np.asarray(masked)
    assert a[15, 15].tolist() == [255, 0, 0] and a[40, 80].tolist() == [1, 2, 3]


def test_segmentation_finds_the_world_objects():
    scene = world.swap_items("id", "attribute", 1)[0].images[0]
    regions = segment_regions(scene.render(128))
    for obj_box in scene.pixel_boxes(128):
        assert any(max(abs(a - b) for a, b in zip(r.box, obj_box)) <= 3 for r in regions)


def test_random_regions_are_seeded():
    im = Image.new("RGB", (64, 48))
    a, b = random_regions(im, 5, seed=1), random_regions(im, 5, seed=1)
    assert [r.box for r in a] == [r.box for r in b]
    assert all(r.mask.sum() == r.area for r in a)
