"""Weak evidence said beside each verdict: judged on a drawing's own objects, silent on a photo."""

import numpy as np
from PIL import Image, ImageDraw

from explorer import world
from explorer.core import image_state
from explorer.engine import Engine
from explorer.engine.cautions import objects_mask
from explorer.images.regions import Region
from explorer.language import text
from explorer.methods.sgi import SegmentMatch, SGIEvidence
from explorer.methods.sgi.cautions import sgi_cautions


def _slide() -> Image.Image:
    """A 16:9 slide with a red square at its left side and a blue circle at its right."""
    slide = Image.new("RGB", (1600, 900), "white")
    draw = ImageDraw.Draw(slide)
    for paint, left in ((draw.rectangle, 60), (draw.ellipse, 1360)):
        paint((left, 380, left + 180, 560), fill=world.COLORS["red" if left < 800 else "blue"])
    return slide


def test_the_raw_view_of_a_slide_says_the_model_sees_no_shape(embedded):
    engine = Engine(embedded, ["global", "sgi", "tflocal"])
    raw = engine.analyze(_slide(), "a red square and a blue circle", "a blue square and a red circle", view="raw")
    assert any("shows none of the picture's 2 shapes" in n for n in raw.notices)
    assert any(c.method == "" for c in raw.cautions)
    tflocal = [c for c in raw.cautions if c.method == "tflocal"]
    assert tflocal and all(c.per_layer and max(c.per_layer) < 0.05 for c in tflocal)  # no shape in its grid
    whole = engine.analyze(_slide(), "a red square and a blue circle", "a blue square and a red circle")
    assert not any("shows none" in n for n in whole.notices)
    assert not [c for c in whole.cautions if c.method == "sgi" and c.caption == 0]  # A's objects: on their windows


def test_an_sgi_match_on_empty_canvas_is_said_and_one_on_the_object_is_not():
    slide = image_state.of(_slide())
    mask = objects_mask(slide)
    assert mask is not None and mask[470, 150] and mask[470, 1450] and not mask[100, 800]
    segment = next(s for s in text.segments("a red square and a blue circle") if s.kind == "object")
    regions = (Region((0, 0, 800, 800), "crop"), Region((50, 370, 250, 570), "object"))
    evidence = lambda k: SGIEvidence(regions, (SegmentMatch(segment, "a red square", k, 0.81),), np.zeros((1, 2)))
    said = sgi_cautions("sgi", 0, evidence(0), mask)
    assert len(said) == 1 and "a red square" in said[0].text and said[0].share > 5 / 6
    assert sgi_cautions("sgi", 0, evidence(1), mask) == []


def test_a_photo_gets_no_caution(embedded):
    noise = np.random.default_rng(0).integers(0, 256, (256, 256, 3), dtype=np.uint8)
    assert objects_mask(image_state.of(Image.fromarray(noise))) is None
    analysis = Engine(embedded, ["sgi"]).analyze(Image.fromarray(noise), "a red square", "a blue square")
    assert analysis.cautions == () and analysis.cautions_of("sgi") == ()


def test_a_caution_that_reads_the_same_for_both_captions_is_said_once():
    from explorer.engine import Analysis
    from explorer.methods import Caution

    same = "PowerCLIP's best regions for the whole caption are background"
    said = Analysis(("a", "b"), {}, "m", "cpu", cautions=(
        Caution("powerclip", 1, same, 1.0), Caution("sgi", 0, "x", 0.9), Caution("powerclip", 0, same, 1.0),
        Caution("powerclip", 1, "B's own", 0.9)))
    assert said.cautions_of("powerclip") == (same, "B's own") and said.cautions_of("sgi") == ("x",)
