"""Pages read as a person reads them: a photographed sheet found, set upright and evened; ruled paper's lines, a title
and an outline never taken for shapes; the world's scenes left exactly as they are."""

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from explorer import world
from explorer.core import image_state
from explorer.images import ink
from explorer.images.fit import fit_of
from explorer.images.ink import fills_alone, ink_objects
from explorer.images.page import read_page
from explorer.methods import proposals

RED, BLUE = world.COLORS["red"], world.COLORS["blue"]


def _two_shapes(size=(600, 400), paper=(255, 255, 255), outline=None, on=None) -> Image.Image:
    """A red square at the left and a blue circle at the right, outlined in ``outline`` where given (drawn ``on`` a
    page where given)."""
    image = on or Image.new("RGB", size, paper)
    draw = ImageDraw.Draw(image)
    w, h = size
    side = int(0.3 * h)
    draw.rectangle((w // 5, h // 2 - side // 2, w // 5 + side, h // 2 + side // 2), fill=RED, outline=outline,
                   width=8 if outline else 0)
    draw.ellipse((3 * w // 5, h // 2 - side // 2, 3 * w // 5 + side, h // 2 + side // 2), fill=BLUE, outline=outline,
                 width=8 if outline else 0)
    return image


def _near(rgb, paint) -> bool:
    return float(np.linalg.norm(np.subtract(rgb, paint))) < 40


def test_the_worlds_scenes_and_plain_drawings_are_read_as_they_are():
    for split in ("heldout", "shift", "style"):  # the world eval's other splits: tests/images/test_fit.py
        for kind in world.KINDS:
            for item in world.swap_items(split, kind, 4):
                for picture in item.pictures(128):
                    assert not read_page(picture).changes, (split, kind)
                    if (paper := ink.on_paper(picture)) is not None:  # the plain reading, unchanged
                        found, plain = ink_objects(picture), ink._read(picture, paper, False)
                        assert [(o.box, o.rgb) for o in found.objects] == [(o.box, o.rgb) for o in plain.objects]
    assert not read_page(_two_shapes()).changes


def test_ruled_paper_lines_and_margin_are_background():
    page = Image.new("RGB", (900, 700), (250, 250, 245))
    draw = ImageDraw.Draw(page)
    for y in range(60, 700, 24):
        draw.line((0, y, 900, y), fill=(160, 195, 240), width=1)
    draw.line((70, 0, 70, 700), fill=(230, 120, 130), width=2)
    page = _two_shapes(page.size, on=page)
    read = read_page(page)
    assert read.changes and read.crop is None and "ruled lines" in read.what[0]
    found = proposals.objects(image_state.of(page)).objects
    assert len(found) == 2 and {_near(o.rgb, RED) or _near(o.rgb, BLUE) for o in found} == {True}
    assert np.abs(np.asarray(read.picture, int)[100:110, 300] - (250, 250, 245)).max() < 10  # a rule painted out


def test_an_outline_and_its_fill_are_one_object_of_the_fills_colour():
    outlined = _two_shapes(outline=(20, 20, 20))
    plain = ink_objects(outlined)  # a plain drawing (the world's outlined shift split) is read as it always was
    assert len(plain.objects) == 4
    for found in (fills_alone(plain).objects, ink_objects(outlined, page=True).objects):  # a caption's; a page's
        assert len(found) == 2
        assert sorted(_near(o.rgb, RED) + 2 * _near(o.rgb, BLUE) for o in found) == [1, 2]


def test_a_title_and_a_footer_are_text_not_shapes():
    try:
        font, small = ImageFont.truetype("DejaVuSans-Bold.ttf", 64), ImageFont.truetype("DejaVuSans.ttf", 26)
    except OSError:
        pytest.skip("no DejaVu font here to write a slide's title with")
    slide = _two_shapes((1600, 900), outline=(20, 20, 20))
    draw = ImageDraw.Draw(slide)
    draw.text((100, 50), "Shapes and colours", fill=(30, 30, 30), font=font)
    draw.text((80, 840), "Year 2 science", fill=(110, 110, 110), font=small)
    found = proposals.objects(image_state.of(slide))
    assert len(found.objects) == 2
    assert found.text and found.text[0][1] < 150 and found.text[0][2] > 500  # the title's line, across the top


TURN = 8  # degrees the sheet lies turned on the table


def _photographed() -> Image.Image:
    """A 640 x 480 sheet with a red square and a blue circle, turned ``TURN`` degrees on a 1000 x 750 table, lit
    unevenly."""
    w, h = 1000, 750
    sheet = _two_shapes((640, 480), (245, 245, 240))
    photo = Image.new("RGB", (w, h), (130, 90, 60))
    mask = Image.new("L", (w, h), 0)
    photo.paste(sheet, (180, 135))
    mask.paste(255, (180, 135, 820, 615))
    turned, mask = photo.rotate(8, Image.Resampling.BICUBIC, center=(500, 375)), mask.rotate(8, center=(500, 375))
    table = Image.new("RGB", (w, h), (130, 90, 60))
    table.paste(turned, mask=mask)
    light = np.linspace(0.7, 1.0, w)[None, :, None]
    return Image.fromarray((np.asarray(table, float) * light).astype(np.uint8))


def _square_centre_on_the_photo() -> tuple[float, float]:
    a = np.radians(TURN)
    dx, dy = 180 + 192 - 500, 135 + 240 - 375
    return 500 + dx * np.cos(a) + dy * np.sin(a), 375 - dx * np.sin(a) + dy * np.cos(a)


def test_a_photographed_sheet_is_found_upright_and_evened():
    photo = _photographed()
    page = read_page(photo)
    assert page.crop is not None and abs(page.turn + TURN) <= 1.5 and "sheet" in page.what[0]
    paper = np.asarray(page.picture, float)[[10, 10, -10, -10], [10, -10, 10, -10]]
    assert np.ptp(paper.mean(axis=1)) < 20  # the light evened: the sheet's corners alike
    found = proposals.objects(image_state.of(photo)).objects
    assert len(found) == 2
    square = next(o for o in found if _near(o.rgb, RED))
    x0, y0, x1, y1 = square.box  # moved back onto the photo: around where the square lies there
    cx, cy = _square_centre_on_the_photo()
    assert x0 < cx < x1 and y0 < cy < y1
    fit = fit_of(photo)
    assert fit.page is page or fit.page.crop == page.crop
    assert "sheet photographed" in fit.note


def test_a_region_on_a_turned_sheet_is_named_where_it_lies_on_the_photo():
    """SGI's regions are named in the upload's own pixels: on a photographed sheet set upright, a box of the sheet is
    turned back onto the photo (and scaled to the upload's size), not named in the upright sheet's pixels."""
    from explorer.drawing.display import upload_place
    from explorer.images.inputs import Upload
    from explorer.methods.picture import prepare

    photo = _photographed()
    image_state.of(photo).keep(Upload((2000, 1500)))  # read at half the upload's size
    state, picture = prepare(photo, "whole")
    square = next(o for o in picture.objects if _near(o.rgb, RED))
    x0, y0, x1, y1 = upload_place(state).box(square.box)
    cx, cy = _square_centre_on_the_photo()
    assert x0 < 2 * cx < x1 and y0 < 2 * cy < y1
    assert 2 * 144 <= x1 - x0 <= 2 * 144 * 1.4  # the square's 144 px side, a turned box's few more, in the upload's


def test_two_overlapping_shapes_of_near_colours_are_two_objects():
    """An orange triangle with a red square drawn over a part of it: a plain reading's two colours start from the
    darkest and the brightest pixel (a soft edge's) and keep them as one; the page's reading parts them."""
    image = Image.new("RGB", (800, 800), "white")
    draw = ImageDraw.Draw(image)
    draw.polygon([(150, 600), (330, 250), (510, 600)], fill=world.COLORS["orange"])
    draw.rectangle((420, 330, 700, 610), fill=world.COLORS["red"])
    plain = ink._read(image, (255, 255, 255), False)
    assert len(fills_alone(plain).objects) == 1  # what a plain reading alone makes of it
    found = fills_alone(ink_objects(image))
    assert len(found.objects) == 2 and found.page
    assert sorted(_near(o.rgb, world.COLORS["orange"]) + 2 * _near(o.rgb, RED) for o in found.objects) == [1, 2]

