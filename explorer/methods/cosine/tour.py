"""The global cosine's step of the guided tour, the first: it cannot tell the swap, said from the example's scores."""

from __future__ import annotations

from PIL import Image

from explorer.world.tour import Compared, Step

SMALL_GAP = 0.02  # a global cosine gap under this is called a hair


def global_finding(image: Image.Image, analysis: Compared) -> str:
    """Both captions' global cosines, their difference and what it says: all read from ``analysis``."""
    if "global" not in analysis.scores:
        return "This page runs no global cosine: there is nothing of it to see here."
    a, b = (s.value for s in analysis.scores["global"])
    gap = a - b
    verdict = ("it prefers the swapped caption B: the false caption scores higher" if gap < 0 else
               "A wins by a hair: a swap moves one vector for the whole picture very little" if gap < SMALL_GAP else
               "A wins clearly here, yet the binding tab shows how little of the picture's vector is about which "
               "colour goes with which shape")
    return f"**On this picture, {analysis.model}**: A {a:.3f}, B {b:.3f}, A - B {gap:+.3f}: {verdict}."


STEP = Step("The global cosine cannot tell the swap", "main",
            "Caption A describes the picture; B swaps the colours. In the table, the global cosine gives A and B "
            "nearly the same score (A - B close to 0), and it may even prefer B: one vector for the whole picture says "
            "which colours and shapes are there, not which colour goes with which shape.", global_finding)
