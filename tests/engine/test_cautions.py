"""Weak evidence said beside each verdict: judged on a drawing's own objects, silent on a photo."""

import numpy as np
import pytest
from PIL import Image, ImageDraw

from explorer import world
from explorer.engine import Engine
from explorer.images.regions import Region
from explorer.language import text
from explorer.methods.picture import prepare
from explorer.methods.sgi import SegmentMatch, SGIEvidence
from explorer.methods.sgi.cautions import sgi_cautions


def _slide() -> Image.Image:
    """A 16:9 slide with a red square at its left side and a blue circle at its right."""
    slide = Image.new("RGB", (1600, 900), "white")
    draw = ImageDraw.Draw(slide)
    for paint, left in ((draw.rectangle, 60), (draw.ellipse, 1360)):
        paint((left, 380, left + 180, 560), fill=world.COLORS["red" if left < 800 else "blue"])
    return slide


def objects_mask(image: Image.Image) -> np.ndarray | None:
    """The objects' pixels of ``image`` read as it is (the raw view: the slide's own pixels)."""
    return prepare(image, "raw")[1].mask()


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
    mask = objects_mask(_slide())
    assert mask is not None and mask[470, 150] and mask[470, 1450] and not mask[100, 800]
    segment = next(s for s in text.segments("a red square and a blue circle") if s.kind == "object")
    regions = (Region((0, 0, 800, 800), "crop"), Region((50, 370, 250, 570), "object"))
    evidence = lambda k: SGIEvidence(regions, (SegmentMatch(segment, "a red square", k, 0.81),), np.zeros((1, 2)))
    said = sgi_cautions("sgi", 0, evidence(0), mask)
    assert len(said) == 1 and "a red square" in said[0].text and said[0].share > 5 / 6
    assert sgi_cautions("sgi", 0, evidence(1), mask) == []


def test_a_photo_gets_no_caution(embedded):
    noise = np.random.default_rng(0).integers(0, 256, (256, 256, 3), dtype=np.uint8)
    assert objects_mask(Image.fromarray(noise)) is None
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


def _titled_slide() -> Image.Image:
    """The slide with a title line across its top and a footer."""
    from PIL import ImageFont

    try:
        title, small = ImageFont.truetype("DejaVuSans-Bold.ttf", 70), ImageFont.truetype("DejaVuSans.ttf", 26)
    except OSError:
        pytest.skip("no DejaVu font here to write a slide's title with")
    slide = _slide()
    draw = ImageDraw.Draw(slide)
    draw.text((120, 40), "Which shape is red?", fill=(20, 20, 20), font=title)
    draw.text((60, 850), "Year 2 science", fill=(110, 110, 110), font=small)
    return slide


def test_tflocal_on_a_slide_with_its_attention_on_blank_canvas_or_the_title_is_cautioned():
    from explorer.methods.tflocal.cautions import tflocal_cautions
    from explorer.methods.tflocal.method import AttentionEvidence

    mask = objects_mask(_titled_slide())
    assert mask is not None and not mask[60:130, 150:1000].any()  # the title is text, not a shape
    grid = (9, 16)  # 100 px patches

    def attending(row: int, col: int) -> AttentionEvidence:
        attention = np.full((2, 1, 3, 144), 0.2 / 143)
        attention[:, :, :, row * 16 + col] = 0.8
        return AttentionEvidence(("a", "red", "square"), attention, grid, (0, 0, 1600, 900), 0.3, True)

    for row, col in ((6, 8), (0, 4)):  # blank canvas between the shapes, below them; the title
        said = tflocal_cautions("tflocal", 0, attending(row, col), mask)
        assert len(said) == 1 and "every layer" in said[0].text and max(said[0].per_layer) < 0.1
    assert tflocal_cautions("tflocal", 0, attending(4, 1), mask) == []  # on the red square


def test_a_method_preferring_a_caption_with_an_absent_colour_is_cautioned_beside_its_verdict():
    from explorer.engine import Analysis
    from explorer.engine.cautions import absent_colours
    from explorer.methods import Score
    from explorer.ui.main_tab import method_notices

    true, false = "a red square and a blue circle", "a blue square and a green circle"
    _, state = prepare(_slide(), "raw")
    scores = {"powerclip": (Score("powerclip", true, 0.4749), Score("powerclip", false, 0.4883)),
              "sgi": (Score("sgi", true, 0.31), Score("sgi", false, 0.27)),
              "global": (Score("global", true, 0.2), Score("global", "a red circle and a blue square", 0.3))}
    said = absent_colours(state, scores)
    assert [(c.method, c.caption) for c in said] == [("powerclip", 1)]
    assert "green" in said[0].text and "blue, red" in said[0].text
    assert absent_colours(state, scores, untrained=("powerclip",)) == []
    analysis = Analysis((true, false), scores, "m", "cpu", cautions=tuple(said))
    assert method_notices(analysis)["powerclip"] == (said[0].text,)  # beside its verdict and in the 2 x 2
    rows = {r["method"]: r for r in analysis.rows()}  # the notebook's result
    assert rows["powerclip"]["cautions"] == (said[0].text,) and rows["sgi"]["cautions"] == ()
