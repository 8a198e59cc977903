"""Crops as tensor operations: equal to open_clip's preprocess of PIL crops, and their matrices kept within a
budget."""

import numpy as np
import pytest
import torch
from open_clip.transform import PreprocessCfg, image_transform_v2
from PIL import Image
from skimage import data

from explorer.core.cache import LRUCache
from explorer.images import crops
from explorer.images.crops import Preprocessing, crop_batch, image_tensor, resample_weights
from explorer.images.regions import crop_image, multiscale_crops

MEAN, STD = (0.48145466, 0.4578275, 0.40821073), (0.26862954, 0.26130258, 0.27577711)


@pytest.mark.parametrize("resize_mode,interpolation,size", [
    ("shortest", "bicubic", (64, 64)), ("longest", "bicubic", (64, 64)), ("squash", "bilinear", (48, 64)),
    ("shortest", "bilinear", (48, 64)),
])
@pytest.mark.parametrize("mode", ["mask", "resize"])
def test_crops_are_open_clips_preprocess_of_the_pil_crops(resize_mode, interpolation, size, mode):
    """Pixel for pixel as open_clip's transform of each PIL view, up to PIL's fixed-point rounding of a tie."""
    image = Image.fromarray(data.astronaut()).resize((150, 100))
    fill = (20, 30, 40)
    boxes = [r.box for r in multiscale_crops(*image.size, scales=(1.0, 0.5, 0.25), stride=1.0)] + [(7, 3, 60, 90)]
    cfg = PreprocessCfg(size, "RGB", MEAN, STD, interpolation, resize_mode, fill_color=9)
    prep, reference = Preprocessing.from_cfg(cfg), image_transform_v2(cfg, is_train=False)
    want = torch.stack([reference(crop_image(image, b, mode, fill)) for b in boxes])
    got = crop_batch(image_tensor(image, "cpu"), boxes, mode, fill, prep)
    levels = ((got - want) * torch.tensor(STD).view(1, 3, 1, 1) * 255).abs()
    assert got.shape == want.shape and levels.max() < 1.01 and (levels > 0.01).float().mean() < 1e-2


def test_resampling_rows_sum_to_one_and_keep_a_same_size_axis():
    w = resample_weights(300, 64, "bicubic")
    assert w.shape == (64, 300) and np.allclose(w.sum(axis=1), 1.0)
    assert np.array_equal(resample_weights(50, 50, "bicubic"), np.eye(50))
    # the rows a centre crop keeps, alone: a 1024 x 1 mask view resized to 224 x 229,376 once made them all (24 s)
    assert np.array_equal(resample_weights(37, 4096, "bicubic", range(1936, 2160)),
                          resample_weights(37, 4096, "bicubic")[1936:2160])
    assert crops._axis_matrix(1024, 229_376, 224, "bicubic")[0].shape == (224, 1024)


def test_preprocessing_is_read_from_the_model(embedded):
    prep = Preprocessing.of(embedded.model)
    assert prep.size == (embedded.image_size,) * 2 and prep.resize_mode == "shortest"
    assert prep.resized(100, 300) == (embedded.image_size, 3 * embedded.image_size)


def test_the_crops_axis_matrices_stay_within_their_byte_budget_whatever_the_image_sizes(monkeypatch):
    """A soak of photos of many sizes once kept 425 MB of matrices that no later image used; now a byte budget."""
    budget = 4 * 2**20
    kept = LRUCache(512, max_bytes=budget, weigh=lambda pair: sum(a.nbytes for a in pair))
    monkeypatch.setattr(crops, "_axis_cache", lambda: kept)
    for side in range(300, 1024, 29):  # every image size a new pair of matrices, each 0.5 to 1.8 MB
        crops.axis_matrix(side, 224, 224, "bicubic")
        assert kept.nbytes <= budget
    assert 2 <= len(kept) <= 8
    again = crops.axis_matrix(1019, 224, 224, "bicubic")  # the last size is still kept: the same arrays
    assert again[0] is crops.axis_matrix(1019, 224, 224, "bicubic")[0]


def test_a_byte_budget_needs_a_weight_and_a_value_larger_than_it_stays_alone():
    with pytest.raises(ValueError, match="go together"):
        LRUCache(4, max_bytes=10)
    cache = LRUCache(4, max_bytes=10, weigh=len)
    cache.put("a", "x" * 4)
    cache.put("b", "y" * 5)
    assert len(cache) == 2 and cache.nbytes == 9
    cache.put("c", "z" * 30)
    assert len(cache) == 1 and "c" in cache and cache.nbytes == 30
