"""The real 2 x 2 of a swap: each method's four scores (captions A and B on images A and B) as a small grid, each
picture's preferred caption and each caption's preferred picture marked, and the verdicts in words with their reason.

The grid is HTML (a few numbers a method, on a phone as on a wide screen); the page's CSS styles its classes.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from explorer.core.items import Item
from explorer.eval.accuracy import Outcome, outcome

COLUMN_MARK = "\u25cf"  # ● the caption this picture prefers: the higher score of its column
ROW_MARK = "\u25c6"  # ◆ the picture this caption prefers: the higher score of its row
LEGEND = (f"In each method's grid, {COLUMN_MARK} marks the caption each picture prefers (its column's higher score) "
          f"and {ROW_MARK} the picture each caption prefers (its row's higher score); the framed cells are the right "
          f"pairs (caption A on image A, B on B). *text* is right when both framed cells carry {COLUMN_MARK}, *image* "
          f"when both carry {ROW_MARK}, *group* when both are right.")
NAMES = ("A", "B")
TICK, CROSS = "\u2713", "\u2717"


@dataclass(frozen=True)
class Grid:
    """One method's 2 x 2: ``scores[c, i]`` is caption c on image i (0: A, 1: B)."""

    label: str
    scores: np.ndarray
    trained: bool = True  # False: random weights, its verdicts mean nothing
    notes: tuple[str, ...] = ()  # what its evidence is worth where it is weak (said under the grid)

    def outcome(self) -> Outcome:
        """The verdicts by the evaluation's one rule (``explorer.eval.accuracy.outcome``)."""
        return outcome(Item("swap", NAMES, NAMES), self.scores)

    def prefers(self) -> str:
        """The caption the method scores higher on image A (the page's table's *prefers*)."""
        a, b = self.scores[:, 0]
        return "A" if a > b else "B" if b > a else "tie"

    def reason(self) -> str:
        """Why the verdicts are what they are, in a few words."""
        if not self.trained:
            return "random weights: its verdicts mean nothing"
        said = []
        for i in (0, 1):  # the text score: each picture's own caption above the other
            own, other = self.scores[i, i], self.scores[1 - i, i]
            if not own > other:
                said.append(f"on image {NAMES[i]}, caption {NAMES[1 - i]} scores {_above(own, other)}")
        for c in (0, 1):  # the image score: each caption higher on its own picture
            own, other = self.scores[c, c], self.scores[c, 1 - c]
            if not own > other:
                said.append(f"caption {NAMES[c]} scores {_above(own, other, f' on image {NAMES[1 - c]}')}")
        if not said:
            return "each picture prefers its own caption, and each caption its own picture"
        if self.prefers() == "A" and not self.outcome().text:
            said[0] = "it prefers A on both pictures: " + said[0]
        return "; ".join(said)


def _above(own: float, other: float, where: str = "") -> str:
    """How the other score stands to the right one it beats or ties (``where``), with both numbers."""
    return f"{'as high' if own == other else 'higher'}{where} ({_number(other)} vs {_number(own)})"


def _number(value: float) -> str:
    """A score as the page writes every score: 4 places."""
    return f"{value:.4f}"


def _cell(grid: Grid, c: int, i: int) -> str:
    column, row = grid.scores[:, i], grid.scores[c, :]
    marks = []
    if column[c] > column[1 - c]:
        marks.append(f'<span class="mark" title="image {NAMES[i]} prefers caption {NAMES[c]}">{COLUMN_MARK}</span>')
    if row[i] > row[1 - i]:
        marks.append(f'<span class="mark" title="caption {NAMES[c]} prefers image {NAMES[i]}">{ROW_MARK}</span>')
    own = ' class="own"' if c == i else ""
    return f'<td{own} data-cell="{NAMES[c]}{NAMES[i]}">{_number(grid.scores[c, i])} {"".join(marks)}</td>'


def _verdicts(grid: Grid) -> str:
    if not grid.trained:
        return "n/a (random weights)"
    found = grid.outcome()
    return " \u00b7 ".join([f"prefers {grid.prefers()}"] + [
        f"{name} {TICK if ok else CROSS}"
        for name, ok in (("text", found.text), ("image", bool(found.image)), ("group", found.correct))])


def grid_html(grid: Grid) -> str:
    """One method's grid: its label, the caption it prefers on image A and its verdicts above, the four scores marked,
    the reason below."""
    rows = "".join(f"<tr><th scope=\"row\">caption {NAMES[c]}</th>{_cell(grid, c, 0)}{_cell(grid, c, 1)}</tr>"
                   for c in (0, 1))
    return (f'<figure class="two-by-two-grid"><figcaption><strong>{html.escape(grid.label)}</strong>: '
            f"{_verdicts(grid)}</figcaption><table><thead><tr><th></th><th scope=\"col\">image A</th>"
            f'<th scope="col">image B</th></tr></thead><tbody>{rows}</tbody></table>'
            f'<p class="reason">{html.escape(grid.reason())}</p>'
            + "".join(f'<p class="caution">\u26a0 {html.escape(n)}</p>' for n in grid.notes) + "</figure>")


def grids_html(grids: Sequence[Grid]) -> str:
    """Every method's grid, side by side where the page is wide enough."""
    return '<div class="two-by-two-grids">' + "".join(grid_html(g) for g in grids) + "</div>"
