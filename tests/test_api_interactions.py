"""explorer/api.py's interactions: the notebook gets each caption's token x patch table on the page's model."""

from explorer import world
from explorer.api import Explorer


def test_the_notebook_reads_each_captions_interactions_and_a_spans_map():
    explorer = Explorer(methods=["global"])
    scene = world.Scene((world.WorldObject("red", "square", "large", 0.27, 0.3),
                         world.WorldObject("blue", "circle", "large", 0.72, 0.7))).render(128)
    a, b = explorer.interactions(scene, "a red square and a blue circle", "a blue square and a red circle")
    assert (a.caption, b.caption) == ("a red square and a blue circle", "a blue square and a red circle")
    assert a.span_map((2, 12)).shape == (8, 8) and a.words == tuple("a red square and a blue circle".split())


def test_the_notebooks_interactions_give_the_tables_cosines_on_a_slide():
    """A wide slide is read padded to a square by every method: its interactions read that view too."""
    from PIL import Image, ImageDraw

    explorer = Explorer(methods=["global"])
    slide = Image.new("RGB", (320, 180), "white")
    ImageDraw.Draw(slide).rectangle((8, 60, 58, 110), fill="red")  # near the edge: a centre crop would cut it
    ImageDraw.Draw(slide).ellipse((262, 60, 312, 110), fill="blue")
    captions = ("a red square and a blue circle", "a blue square and a red circle")
    found = explorer.interactions(slide, *captions)
    table = explorer.analyze(slide, *captions).table().iloc[0]
    assert all(abs(f.cosine - table[k]) <= 5e-4 for f, k in zip(found, "AB"))  # the table's, as printed (3 places)
