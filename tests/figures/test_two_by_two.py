"""The real 2 x 2: each method's four scores, each column's and row's higher score marked, verdicts with a reason."""

import re

import numpy as np

from explorer.figures.two_by_two import COLUMN_MARK, ROW_MARK, Grid, grid_html


def _marks(html: str) -> dict[str, str]:
    """Each cell (caption, image) with its number and marks."""
    return {cell: re.sub(r"<[^>]+>", "", body).strip()
            for cell, body in re.findall(r'data-cell="([AB][AB])">(.*?)</td>', html)}


def test_a_method_that_prefers_a_on_both_pictures_fails_text_and_says_why():
    grid = Grid("SGI", np.array([[0.8143, 0.8202], [0.8100, 0.8150]]))  # caption A higher on both pictures
    cells = _marks(grid_html(grid))
    assert cells == {"AA": f"0.8143 {COLUMN_MARK}", "AB": f"0.8202 {COLUMN_MARK}{ROW_MARK}",
                     "BA": "0.8100", "BB": f"0.8150 {ROW_MARK}"}
    assert grid.prefers() == "A" and not grid.outcome().text and not grid.outcome().image
    assert grid.reason().startswith("it prefers A on both pictures: on image B, caption A scores higher "
                                    "(0.8202 vs 0.8150)")
    assert "caption A scores higher on image B (0.8202 vs 0.8143)" in grid.reason()
    assert "prefers A \u00b7 text \u2717 \u00b7 image \u2717 \u00b7 group \u2717" in grid_html(grid)  # the reason under it


def test_a_right_2x2_marks_both_own_cells_twice_and_an_untrained_one_says_nothing():
    right = Grid("global cosine", np.array([[0.31, 0.22], [0.25, 0.30]]))
    cells = _marks(grid_html(right))
    assert cells["AA"].endswith(COLUMN_MARK + ROW_MARK) and cells["BB"].endswith(COLUMN_MARK + ROW_MARK)
    assert right.outcome().correct and right.reason().startswith("each picture prefers its own caption")
    tied = Grid("x", np.array([[0.5, 0.4], [0.5, 0.6]]))
    assert "as high (0.5000 vs 0.5000)" in tied.reason() and not tied.outcome().text  # a tie is no win
    assert COLUMN_MARK not in _marks(grid_html(tied))["AA"]
    untrained = Grid("TFLocal", right.scores, trained=False)
    assert "n/a" in grid_html(untrained) and "mean nothing" in untrained.reason()
    assert "&lt;b&gt;" in grid_html(Grid("<b>", right.scores))  # a label is text, not markup
