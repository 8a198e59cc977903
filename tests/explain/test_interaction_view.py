"""explorer/explain/interaction_view.py: the maps tab's interactions, a word's map in A and B and a region's shares."""

import numpy as np
from PIL import Image, ImageDraw

from explorer import world
from explorer.core import image_state
from explorer.explain.interaction_view import find_words, interaction_view, region_cells, word_menu
from explorer.images.fit import frame_of, view_state
from explorer.methods import get_method


def test_the_menu_holds_each_word_and_each_neighbouring_pair_once():
    menu = word_menu(("a red square", "a blue square"))
    assert menu == ["a", "red", "square", "a red", "red square", "blue", "a blue", "blue square"]
    assert find_words("a red square and a blue circle", "blue circle") == [5, 6]
    assert find_words("a red square", "red circle") is None


def test_a_region_is_the_patches_whose_centres_it_holds():
    left = region_cells((8, 8), "left half")
    assert left[:, :4].all() and not left[:, 4:].any()
    assert region_cells((8, 8), "whole picture").sum() == 64


def test_a_word_maps_in_both_captions_on_the_picture_and_a_region_shares_its_words(embedded):
    scene = world.Scene((world.WorldObject("red", "square", "large", 0.27, 0.3),
                         world.WorldObject("blue", "circle", "large", 0.72, 0.7)))
    image = scene.render(128)
    captions = ("a red square and a blue circle", "a blue square and a red circle")
    shown = interaction_view(embedded, image, captions, "red", "left half")
    for panel in shown.panels:
        assert panel.map.shape == (128, 128) and panel.map.min() >= 0 and panel.map.max() > 0
        assert len(panel.shares) == 7 and abs(panel.shares.sum() - 1) < 1e-6
    missing = interaction_view(embedded, image, captions, "red square").panels[1]
    assert missing.map is None and "red square" in missing.missing


def test_a_slides_interactions_read_the_analysiss_view_and_give_the_tables_cosines(embedded):
    """A wide slide is read padded to a square by every method: the interactions are worked out on that view (not the
    centre crop the preprocess would cut of the slide), so each panel's cosine is the global cosine's, and the map
    lies on the slide's own frame."""
    image_state.forget()
    slide = Image.new("RGB", (320, 180), "white")
    draw = ImageDraw.Draw(slide)
    draw.rectangle((8, 60, 58, 110), fill="red")  # near the slide's left edge: cut off by a centre crop
    draw.ellipse((262, 60, 312, 110), fill="blue")
    captions = ("a red square and a blue circle", "a blue square and a red circle")
    seen = view_state(slide, "whole")
    assert frame_of(seen).fit.how == "letterboxed"
    table = get_method("global", embedded).score(seen, list(captions))
    shown = interaction_view(embedded, seen, captions, "red", "left half")
    for panel, score in zip(shown.panels, table):
        assert round(panel.cosine, 3) == round(score.value, 3)
        assert panel.map.shape == (180, 320)  # on the slide, not on the padded square
    raw = interaction_view(embedded, slide, captions, "red")  # the slide's own state: the centre crop, as before
    assert any(round(p.cosine, 3) != round(s.value, 3) for p, s in zip(raw.panels, table))
