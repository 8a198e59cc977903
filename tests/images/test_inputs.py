"""What a user gives the page (``explorer/images/inputs.py``): any image file becomes an RGB picture of bounded size, and bad
captions get a clear message."""

import numpy as np
import pytest
from PIL import Image

from explorer.images.inputs import InputError, clean_caption_pair, load_image


def save(tmp_path, image, name, **kw):
    path = tmp_path / name
    image.save(path, **kw)
    return path


def test_not_an_image(tmp_path):
    path = tmp_path / "notes.png"
    path.write_text("this is not an image")
    with pytest.raises(InputError, match="not an image"):
        load_image(path)
    with pytest.raises(InputError, match="No file"):
        load_image(tmp_path / "missing.png")


@pytest.mark.parametrize("mode", ["L", "RGBA", "CMYK", "P", "1", "I;16", "I", "F", "LA"])
def test_every_mode_becomes_rgb(tmp_path, mode):
    rgb = Image.new("RGB", (40, 30), (200, 50, 20))
    im = rgb.convert(mode) if mode not in ("I;16", "I", "F") else Image.fromarray(
        (np.arange(1200).reshape(30, 40) * 50).astype({"I;16": np.uint16, "I": np.int32, "F": np.float32}[mode]))
    ext = {"CMYK": "jpg", "F": "tiff", "I": "tiff"}.get(mode, "png")
    out = load_image(save(tmp_path, im, f"x.{ext}"))
    assert out.mode == "RGB" and out.size == (40, 30)


def test_sixteen_bit_keeps_its_range(tmp_path):
    a = np.linspace(0, 65535, 64 * 64).reshape(64, 64).astype(np.uint16)
    out = np.asarray(load_image(save(tmp_path, Image.fromarray(a), "deep.png")))
    assert out.min() == 0 and out.max() == 255


def test_transparent_pixels_become_white(tmp_path):
    im = Image.new("RGBA", (10, 10), (255, 0, 0, 0))
    assert np.asarray(load_image(save(tmp_path, im, "clear.png")))[0, 0].tolist() == [255, 255, 255]


def test_huge_image_is_downscaled_not_refused(tmp_path):
    big = Image.new("L", (12000, 12000), 128)
    path = save(tmp_path, big, "huge.png")
    out = load_image(path)
    assert max(out.size) == 1024 and out.mode == "RGB"


def test_exif_rotation_is_applied(tmp_path):
    im = Image.new("RGB", (60, 20), (0, 0, 255))
    im.paste((255, 0, 0), (0, 0, 10, 20))  # red on the left
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 clockwise to display
    out = load_image(save(tmp_path, im, "rotated.jpg", exif=exif, quality=95))
    assert out.size == (20, 60)
    assert np.asarray(out)[2, 10, 0] > 200  # the red band is now on top


@pytest.mark.parametrize("a, b, needle", [("", "x", "A is empty"), ("a dog", "   ", "B is empty"),
                                         ("a dog", "A  dog", "the same"), ("a" * 2000, "b", "longer")])
def test_bad_captions(a, b, needle):
    with pytest.raises(InputError, match=needle):
        clean_caption_pair(a, b)


def test_captions_are_cleaned():
    assert clean_caption_pair("  a black\n dog ", "a white dog") == ("a black dog", "a white dog")


def test_a_kept_image_is_decoded_once_per_version_of_its_file(tmp_path):
    from explorer.images.inputs import read_image_kept

    path = save(tmp_path, Image.new("RGB", (40, 30), "red"), "upload.png")
    first, notices = read_image_kept(path)
    assert read_image_kept(path)[0] is first and first.size == (40, 30) and notices == []
    Image.new("RGB", (50, 30), "blue").save(path)  # the same path, written again
    again = read_image_kept(path)[0]
    assert again is not first and again.size == (50, 30)
    with pytest.raises(InputError, match="No file at gone.png"):
        read_image_kept(tmp_path / "gone.png")


class GivenUpAfter:
    """A cancel token that reads as set from its ``n``-th look on, counting the looks."""

    def __init__(self, n: int) -> None:
        self.n, self.looks = n, 0

    def is_set(self) -> bool:
        self.looks += 1
        return self.looks >= self.n


def test_a_large_images_decoding_stops_when_its_request_is_given_up(tmp_path):
    from explorer.core import cancel

    noise = np.random.default_rng(0).integers(0, 256, (1500, 1500, 3), dtype=np.uint8)
    path = save(tmp_path, Image.fromarray(noise), "large.png")  # ~6.5 MB: about a hundred blocks to decode
    whole = GivenUpAfter(10**9)
    cancel.bind(whole)
    try:
        load_image(path)
        assert whole.looks > 50  # the decoding looks at the token block by block
        cancel.bind(GivenUpAfter(20))  # given up in the middle of the pixels
        with pytest.raises(cancel.Cancelled):
            load_image(path)
    finally:
        cancel.bind(None)
