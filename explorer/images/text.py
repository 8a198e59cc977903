"""Text on a page told from shapes: a title, a label or a footer is a row of marks of about one height side by side
(its letters, or its words where they run together), a shape is a mark of its own about as tall as it is wide.

Marks (their boxes) join a line where their heights overlap by ``OVERLAP`` of the shorter, neither is over ``HEIGHTS``
times the other's height, the gap between them is at most ``GAP`` of the taller's height and their boxes share at
most ``BOXES_SHARE`` of the smaller (letters stand side by side; shapes that touch overlap); a mark whose box shares
that much of itself with another's is never text. A line of at least
``LEAST_MARKS`` marks, or one at least ``WIDE`` times as wide as it is tall, is text, where it is written in one ink
(its marks' colours, from the paper's, within ``ONE_INK`` of one direction) and at most ``TALLEST`` of the page tall (a row of shapes is
neither); a mark that thin and at most
``LINE_THICK`` of the page thick is a drawn line (a rule under a title).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from explorer.images.regions import Box

OVERLAP = 0.5
HEIGHTS = 3.0
GAP = 1.2
BOXES_SHARE = 0.2  # of the smaller box: marks whose boxes share more are shapes overlapping, not letters
LEAST_MARKS = 3
WIDE = 3.0
TALLEST = 0.1  # of the page's longer side: a line of text is at most this tall
ONE_INK = 0.94  # a line of text is written in one ink: each mark's colour lies this close (cosine) to their mean
# in its direction from the paper's (a thin letter is its ink blended with the paper)
LINE_THICK = 0.012  # of the page's longer side (at least 2 px)


def _joined(a: Box, b: Box) -> bool:
    ha, hb = a[3] - a[1], b[3] - b[1]
    overlap = min(a[3], b[3]) - max(a[1], b[1])
    gap = max(a[0], b[0]) - min(a[2], b[2])
    shared = max(0, -gap) * max(0, overlap)  # letters stand side by side; shapes that touch overlap
    least = min((a[2] - a[0]) * ha, (b[2] - b[0]) * hb)
    return (overlap >= OVERLAP * min(ha, hb) and max(ha, hb) <= HEIGHTS * min(ha, hb) and gap <= GAP * max(ha, hb)
            and shared <= BOXES_SHARE * least)


def _on_another(i: int, boxes: Sequence[Box]) -> bool:
    """Whether mark ``i``'s box shares ``BOXES_SHARE`` of itself with another's: a piece of a shape, or shapes that
    touch, never letters."""
    a = boxes[i]
    area = max(1, (a[2] - a[0]) * (a[3] - a[1]))
    return any(max(0, min(a[2], b[2]) - max(a[0], b[0])) * max(0, min(a[3], b[3]) - max(a[1], b[1]))
               >= BOXES_SHARE * area for j, b in enumerate(boxes) if j != i)


def _groups(boxes: Sequence[Box]) -> list[list[int]]:
    parent = list(range(len(boxes)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            if _joined(boxes[i], boxes[j]):
                parent[root(i)] = root(j)
    out: dict[int, list[int]] = {}
    for i in range(len(boxes)):
        out.setdefault(root(i), []).append(i)
    return list(out.values())


def _around(boxes: Sequence[Box]) -> Box:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def text_and_lines(boxes: Sequence[Box], side: int, colours: Sequence[Sequence[float]] | None = None
                   ) -> tuple[list[list[int]], list[int]]:
    """Of marks' ``boxes`` on a page ``side`` px long (their ``colours``, RGB less the paper's, where known): the lines
    of text (each its marks' indices, left to right) and the drawn lines (indices)."""
    thick = max(2.0, LINE_THICK * side)
    lines = [i for i, b in enumerate(boxes) if min(b[2] - b[0], b[3] - b[1]) <= thick
             and max(b[2] - b[0], b[3] - b[1]) >= WIDE * min(b[2] - b[0], b[3] - b[1])]
    rest = [i for i in range(len(boxes)) if i not in lines and not _on_another(i, boxes)]
    text = []
    for group in _groups([boxes[i] for i in rest]):
        x0, y0, x1, y1 = _around([boxes[rest[k]] for k in group])
        inks = np.asarray([colours[rest[k]] for k in group], float) if colours is not None else np.ones((1, 3))
        inks /= np.maximum(np.linalg.norm(inks, axis=1, keepdims=True), 1e-6)  # a thin letter is its ink, paler
        mean = inks.mean(axis=0) / max(float(np.linalg.norm(inks.mean(axis=0))), 1e-6)
        if y1 - y0 > TALLEST * side or float((inks @ mean).min()) < ONE_INK:
            continue  # too tall for a line of text, or marks of many colours: shapes in a row
        if len(group) >= LEAST_MARKS or x1 - x0 >= WIDE * (y1 - y0):
            text.append(sorted((rest[k] for k in group), key=lambda i: boxes[i][0]))
    return text, lines
