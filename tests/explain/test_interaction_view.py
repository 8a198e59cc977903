"""explorer/explain/interaction_view.py: the maps tab's interactions, a word's map in A and B and a region's shares."""

import numpy as np

from explorer import world
from explorer.explain.interaction_view import find_words, interaction_view, region_cells, word_menu


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
