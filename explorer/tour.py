"""A guided tour for teaching: a few steps over the world's examples, each naming its example, the tab to look at
and what to look for there."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Step:
    title: str
    example: str  # an example's name (``explorer.examples``)
    tab: str  # the page's tab id
    look: str  # what to look at, in a few sentences


EXAMPLE = "world: attribute swap (id)"  # a red and a blue object, and captions that swap their colours
STEPS: tuple[Step, ...] = (
    Step("1. The global cosine cannot tell the swap", EXAMPLE, "main",
         "Caption A describes the picture; B swaps the colours. In the table, the global cosine gives A and B nearly "
         "the same score (A - B close to 0), and it may even prefer B: one vector for the whole picture says which "
         "colours and shapes are there, not which colour goes with which shape."),
    Step("2. Why: a bag of concepts", EXAMPLE, "binding",
         "Press 'Analyse the loaded model'. 'R2 object ~ colour + shape' near 100 means each object's embedding is "
         "almost its colour's plus its shape's: swap the colours between two objects and the sum barely moves. In the "
         "plot, each observed object (filled) sits next to its colour + shape sum (hollow)."),
    Step("3. SGI matches each phrase to a region", EXAMPLE, "main",
         "Under the table: each segment of a caption ('red square') takes the region that matches it best. Caption "
         "A's segments find their objects; B's 'blue square' finds no blue square, so its best region scores lower, "
         "and SGI prefers A. The heat map shows every segment against the top regions, the best one boxed."),
    Step("4. TFLocal learns the same from data", EXAMPLE, "tflocal",
         "A small transformer trained over the frozen features: tick one colour word's token and see where it looks. "
         "The bright part should be the object of that colour; everything it does not attend to is darkened."),
    Step("5. PowerCLIP aligns phrases with sets of regions", EXAMPLE, "powerset",
         "Each node of the caption's phrase tree takes the subset of regions whose pooled features match it best. "
         "Pick a noun phrase in A and in B and compare where their subsets lie and how well they match."),
)
