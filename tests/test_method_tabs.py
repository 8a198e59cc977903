"""The TFLocal and PowerCLIP tabs' drawing functions, on a real analysis of a world scene."""

import numpy as np
import pytest

from explorer import world
from explorer.engine import Engine
from explorer.ui import powerset_tab, tflocal_tab

RIGHT, WRONG = "a red square and a blue circle", "a blue square and a red circle"


@pytest.fixture(scope="module")
def result(embedded):
    a = world.WorldObject("red", "square", "large", 0.27, 0.3)
    b = world.WorldObject("blue", "circle", "large", 0.72, 0.7)
    image = world.Scene((a, b)).render(128)
    return image, Engine(embedded).analyze(image, RIGHT, WRONG)


def test_tflocal_tab_shows_scores_tokens_and_heatmaps(result):
    note, table, tokens_a, tokens_b = tflocal_tab.show_scores(result)
    assert list(table["method"]) == ["global cosine", "SGI", "TFLocal"]
    assert "Untrained" not in note  # the embedded model ships its TFLocal weights
    assert [label for label, _ in tokens_a["choices"]][:3] == ["0: a", "1: red", "2: square"]
    *maps, problem = tflocal_tab.draw_heatmaps(result, [2], [5], "mean", "mean")
    assert problem == ""
    square, circle = (np.asarray(im, dtype=float) for im in maps)
    assert square.shape == (448, 448, 3)
    other_head = np.asarray(tflocal_tab.draw_heatmaps(result, [2], [5], "1", "2")[0], dtype=float)
    assert np.abs(square - other_head).mean() > 0.5  # a layer and head of their own, not the mean


def test_tflocal_tab_waits_for_a_comparison():
    note, table, *_ = tflocal_tab.show_scores(None)
    assert "Run a comparison" in note and table is None
    assert tflocal_tab.draw_heatmaps(None, [], [], "mean", "mean") == (None, None, "")


def test_a_drawing_that_fails_says_so_instead_of_raising(result):
    image, analysis = result
    *maps, problem = tflocal_tab.draw_heatmaps((image, analysis), ["not a token"], [], "mean", "mean")
    assert maps == [None, None] and "Something went wrong" in problem
    *drawn, problem = powerset_tab.draw_nodes((image, analysis), 99, 0)  # no node 99
    assert drawn == [None] * 4 and "IndexError" in problem


def test_powerset_tab_lists_nodes_with_exact_and_nla(result):
    note, table, nodes_a, nodes_b = powerset_tab.show_alignments(result)
    assert "exact over" in note and "NLA" in note
    a_rows = table[table["caption"] == "A"]
    assert list(a_rows["node"])[0] == "S" and (a_rows["exact"] >= a_rows["NLA"] - 1e-4).all()
    assert [label for label, _ in nodes_a["choices"]][1:] == ["NP: a red square", "NP: a blue circle"]
    tree_a, tree_b, subset_a, subset_b, problem = powerset_tab.draw_nodes(result, 1, 2)
    assert problem == "" and "best subset" in note
    assert all(cell.startswith("r") for cell in a_rows["best regions"])  # numbered as on the pictures
    assert tree_a.data[-1].marker.size[1] > tree_a.data[-1].marker.size[0]  # the chosen node is drawn larger
    whole, part = (np.asarray(im, dtype=float) for im in powerset_tab.draw_nodes(result, 0, 1)[2:4])
    assert whole.shape == part.shape == (448, 448, 3)
