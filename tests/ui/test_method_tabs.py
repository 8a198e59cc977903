"""The TFLocal and PowerCLIP tabs' drawing functions, on a real analysis of a world scene."""

import re

import numpy as np
import pytest

from explorer import world
from explorer.drawing import marks
from explorer.engine import Engine
from explorer.ui.method_tab import handlers

TFLOCAL, POWERCLIP = handlers("tflocal"), handlers("powerclip")  # each tab's handlers, by their API names

RIGHT, WRONG = "a red square and a blue circle", "a blue square and a red circle"


@pytest.fixture(scope="module")
def result(embedded):
    a = world.WorldObject("red", "square", "large", 0.27, 0.3)
    b = world.WorldObject("blue", "circle", "large", 0.72, 0.7)
    image = world.Scene((a, b)).render(128)
    return image, Engine(embedded).analyze(image, RIGHT, WRONG)


def test_tflocal_tab_shows_scores_tokens_and_heatmaps(result):
    note, table, tokens_a, tokens_b = TFLOCAL["show_scores"](result)
    assert list(table.data["method"]) == ["global cosine", "SGI", "TFLocal"]
    shown = re.findall(r">\s*(-?\d+\.\d+)\s*<", table.to_html())  # A, B and A - B of each row, as the page writes them
    assert len(shown) == 9 and all(len(v.split(".")[1]) == 4 for v in shown), shown
    assert "Untrained" not in note  # the embedded model ships its TFLocal weights
    assert [label for label, _ in tokens_a["choices"]][:3] == ["0: a", "1: red", "2: square"]
    *maps, problem = TFLOCAL["draw_heatmaps"](result, [2], [5], "mean", "mean")
    assert problem == ""
    square, circle = (np.asarray(im, dtype=float) for im in maps)
    beside = 2 * 448 + marks.BESIDE_GAP  # the scene enlarged, its map beside it, its colour bar below
    assert square.shape[1:] == (beside, 3) and square.shape[0] > 448
    other_head = np.asarray(TFLOCAL["draw_heatmaps"](result, [2], [5], "1", "2")[0], dtype=float)
    assert np.abs(square - other_head).mean() > 0.5  # a layer and head of their own, not the mean


def test_tflocal_tab_waits_for_a_comparison():
    note, table, *_ = TFLOCAL["show_scores"](None)
    assert "Run a comparison" in note and table is None
    assert TFLOCAL["draw_heatmaps"](None, [], [], "mean", "mean") == (None, None, "")


def test_a_drawing_that_fails_says_so_instead_of_raising(result):
    image, analysis = result
    *maps, problem = TFLOCAL["draw_heatmaps"]((image, analysis), ["not a token"], [], "mean", "mean")
    assert maps == [None, None] and "Something went wrong" in problem


def test_powerset_tab_lists_nodes_with_exact_and_nla(result):
    note, table, nodes_a, nodes_b = POWERCLIP["show_alignments"](result)
    assert "exact over" in note and "NLA" in note
    a_rows = table[table["caption"] == "A"]
    assert list(a_rows["node"])[0] == "S" and (a_rows["exact"] >= a_rows["NLA"] - 1e-4).all()
    assert [label for label, _ in nodes_a["choices"]][1:] == ["NP: a red square", "NP: a blue circle"]
    tree_a, tree_b, subset_a, subset_b, problem = POWERCLIP["draw_nodes"](result, 1, 2)
    assert problem == "" and "best subset" in note
    assert all(cell.startswith("r") for cell in a_rows["best regions"])  # numbered as on the pictures
    assert tree_a.data[-1].marker.size[1] > tree_a.data[-1].marker.size[0]  # the chosen node is drawn larger
    whole, part = (np.asarray(im, dtype=float) for im in POWERCLIP["draw_nodes"](result, 0, 1)[2:4])
    beside = 2 * 448 + marks.BESIDE_GAP  # the scene enlarged and its pooled patches beside it, the regions named below
    assert whole.shape[1:] == part.shape[1:] == (beside, 3)


def test_a_layer_head_or_node_outside_the_menus_is_refused_by_name(result):
    """The API takes any value where the page offers a menu: a number outside it gets a message, not a crash."""
    from explorer.models.modeling.alignment import HEADS, LAYERS

    *maps, problem = TFLOCAL["draw_heatmaps"](result, [], [], str(LAYERS + 1), "mean")
    assert maps == [None, None] and f"The layer must be a whole number from 1 to {LAYERS}" in problem
    assert f"The head must be a whole number from 1 to {HEADS}; got 0" in TFLOCAL["draw_heatmaps"](
        result, [], [], "mean", "0")[-1]
    *drawn, problem = POWERCLIP["draw_nodes"](result, 99, 0)
    nodes = len(result[1].scores["powerclip"][0].evidence.tree)
    assert drawn == [None] * 4 and f"The node must be a whole number from 0 to {nodes - 1}; got 99" in problem
