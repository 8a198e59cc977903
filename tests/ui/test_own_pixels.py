"""Places and sizes said in the uploaded picture's own pixels: a 1600 x 900 slide is 1600 x 900 on the page."""

from PIL import Image

from explorer.engine.propose import Proposal, SeenObject
from explorer.images.inputs import read_image
from explorer.ui.own_pixels import own_size, scale, sizes_note
from explorer.ui.swap_panel import proposal_text


def test_a_slide_is_reported_in_its_own_pixels_not_the_copy_the_page_reads(tmp_path):
    path = tmp_path / "slide.png"
    Image.new("RGB", (1600, 900), "white").save(path)
    read = read_image(path)[0]
    assert read.size == (1024, 576) and own_size(str(path), read) == (1600, 900)
    assert scale(str(path), read) == 1600 / 1024
    assert sizes_note(str(path), read).startswith("Your picture is 1600 x 900 pixels; the page reads a copy of 1024 x 576")
    small = tmp_path / "pad.png"
    Image.new("RGB", (300, 300), "white").save(small)
    assert sizes_note(str(small), read_image(small)[0]) == ""  # read as it is: nothing to say


def test_a_turned_photo_keeps_its_upright_size(tmp_path):
    path = tmp_path / "phone.jpg"
    exif = Image.Exif()
    exif[0x0112] = 6  # stored 1200 x 800, shown turned a quarter: 800 x 1200
    Image.new("RGB", (1200, 800), "white").save(path, exif=exif)
    read = read_image(path)[0]
    assert read.size == (683, 1024) and own_size(str(path), read) == (800, 1200)


def test_the_proposal_gives_each_box_in_the_pictures_own_pixels():
    found = Proposal("a red square", "", (SeenObject("red", "square", (64, 224, 192, 352), 0.9),), "m")
    assert "at (100, 350, 300, 550)" in proposal_text(found, 1600 / 1024)
    assert "at (64, 224, 192, 352)" in proposal_text(found)
