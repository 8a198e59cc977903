import numpy as np
import pytest
import torch
from open_clip.transform import PreprocessCfg, image_transform_v2
from PIL import Image
from skimage import data

from explorer.regions import crop_view, multiscale_crops
from explorer.views import Preprocessing, crop_views, image_tensor, resample_weights

MEAN, STD = (0.48145466, 0.4578275, 0.40821073), (0.26862954, 0.26130258, 0.27577711)


@pytest.mark.parametrize("resize_mode,interpolation,size", [
    ("shortest", "bicubic", (64, 64)), ("longest", "bicubic", (64, 64)), ("squash", "bilinear", (48, 64)),
    ("shortest", "bilinear", (48, 64)),
])
@pytest.mark.parametrize("mode", ["mask", "resize"])
def test_views_are_open_clips_preprocess_of_the_pil_views(resize_mode, interpolation, size, mode):
    """Pixel for pixel as open_clip's transform of each PIL view, up to PIL's fixed-point rounding of a tie."""
    image = Image.fromarray(data.astronaut()).resize((150, 100))
    fill = (20, 30, 40)
    boxes = [r.box for r in multiscale_crops(*image.size, scales=(1.0, 0.5, 0.25), stride=1.0)] + [(7, 3, 60, 90)]
    cfg = PreprocessCfg(size, "RGB", MEAN, STD, interpolation, resize_mode, fill_color=9)
    prep, reference = Preprocessing.from_cfg(cfg), image_transform_v2(cfg, is_train=False)
    want = torch.stack([reference(crop_view(image, b, mode, fill)) for b in boxes])
    got = crop_views(image_tensor(image, "cpu"), boxes, mode, fill, prep)
    levels = ((got - want) * torch.tensor(STD).view(1, 3, 1, 1) * 255).abs()
    assert got.shape == want.shape and levels.max() < 1.01 and (levels > 0.01).float().mean() < 1e-2


def test_resampling_rows_sum_to_one_and_keep_a_same_size_axis():
    w = resample_weights(300, 64, "bicubic")
    assert w.shape == (64, 300) and np.allclose(w.sum(axis=1), 1.0)
    assert np.array_equal(resample_weights(50, 50, "bicubic"), np.eye(50))


def test_preprocessing_is_read_from_the_model(embedded):
    prep = Preprocessing.of(embedded.model)
    assert prep.size == (embedded.image_size,) * 2 and prep.resize_mode == "shortest"
    assert prep.resized(100, 300) == (embedded.image_size, 3 * embedded.image_size)
