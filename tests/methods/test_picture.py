"""The picture prepared once: from ``Engine.analyze``, the view, its frame, its paper and its objects are each looked
up once, by ``methods/picture.py``, and every reader (the methods, the cautions) is handed what it made."""

import collections
import sys

import numpy as np
import pytest
from PIL import Image, ImageDraw

from explorer import world
from explorer.engine import Engine
from explorer.methods.picture import Picture, prepare

LOOK_UPS = {("explorer.images.fit", "view_state"), ("explorer.images.fit", "frame_of"),
            ("explorer.images.fit", "fit_of"), ("explorer.images.page", "on_paper"),
            ("explorer.methods.proposals", "objects")}
A, B = "a red square and a blue circle", "a blue square and a red circle"


def slide(seed: int) -> Image.Image:
    """A 1600 x 900 slide, a red square at its left and a blue circle at its right (one pixel set by ``seed``, so
    that no state of an earlier picture is found)."""
    image = Image.new("RGB", (1600, 900), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((60, 380, 240, 560), fill=world.COLORS["red"])
    draw.ellipse((1360, 380, 1540, 560), fill=world.COLORS["blue"])
    image.putpixel((800, 450), (seed, seed, seed))
    return image


def photo(seed: int) -> Image.Image:
    return Image.fromarray(np.random.default_rng(seed).integers(0, 256, (480, 640, 3), dtype=np.uint8))


def look_ups(engine: Engine, image: Image.Image, view: str) -> collections.Counter:
    """Each look-up of the picture entered from outside its module during one analysis, by who entered it."""
    seen: collections.Counter = collections.Counter()

    def profile(frame, event, _):
        if event == "call" and (frame.f_globals.get("__name__"), frame.f_code.co_name) in LOOK_UPS:
            caller = frame.f_back.f_globals.get("__name__") if frame.f_back else None
            if caller != frame.f_globals.get("__name__"):
                seen[(frame.f_code.co_name, caller)] += 1

    sys.setprofile(profile)
    try:
        engine.analyze(image, A, B, view=view)
    finally:
        sys.setprofile(None)
    return seen


@pytest.mark.parametrize("view", ["whole", "raw"])
@pytest.mark.parametrize("make", [slide, photo])
def test_the_view_frame_paper_and_objects_are_looked_up_once_by_the_prepared_picture(embedded, make, view):
    engine = Engine(embedded)
    found = look_ups(engine, make(1 if view == "whole" else 2), view)
    expected = {("view_state", "explorer.methods.picture"): 1, ("frame_of", "explorer.methods.picture"): 1,
                ("on_paper", "explorer.methods.picture"): 1}
    if make is slide:  # the objects read once, on the paper their reading finds (``ink.ink_objects``)
        expected.update({("objects", "explorer.methods.picture"): 1, ("on_paper", "explorer.images.ink"): 1})
    fit = [k for k in found if k[0] == "fit_of"]  # the raw view, or a whole view that leaves the picture as it is
    assert all(k == ("fit_of", "explorer.methods.picture") and found[k] == 1 for k in fit), found
    assert {k: n for k, n in found.items() if k[0] != "fit_of"} == expected


def test_the_analysis_cautions_read_the_prepared_picture(embedded):
    """The raw view of a slide shows neither shape: the cautions say so from the prepared picture's objects, whose
    centres are in the upload's pixels."""
    state, picture = prepare(slide(3), "raw")
    assert isinstance(picture, Picture) and picture.paper == (255, 255, 255) and len(picture.objects) == 2
    assert np.allclose(sorted(picture.centres()), [(150, 470), (1450, 470)], atol=1.0)
    _, whole = prepare(slide(3), "whole")  # letterboxed to a square: the same centres in the upload's pixels
    assert np.allclose(sorted(whole.centres()), sorted(picture.centres()), atol=1.0)
    analysis = Engine(embedded, ["global"]).analyze(slide(3), A, B, view="raw")
    assert any("shows none of the picture's 2 shapes" in n for n in analysis.notices)
    assert prepare(photo(4), "whole")[1].paper is None and prepare(photo(4), "whole")[1].objects == ()
