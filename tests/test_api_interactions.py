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
