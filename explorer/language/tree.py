"""A constituency-style tree of a caption (S, NP, PP, VP nodes over token spans), read off spaCy's dependencies.

S is the whole caption. NP: a noun with its determiner and left modifiers, and a larger NP when a
prepositional phrase or a clause hangs off it. PP: a preposition and its object. VP: a verb with its
auxiliaries and everything it governs to its right (objects, particles, prepositional phrases). A phrase
whose span equals a bigger node's is dropped; outer punctuation is trimmed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from spacy.tokens import Doc, Token

from explorer.language.text import parse

LABELS = ("S", "NP", "PP", "VP")
NP_LEFT = {"det", "predet", "amod", "compound", "nummod", "quantmod", "poss", "nmod"}
NP_RIGHT = {"prep", "relcl", "acl", "appos"}
VP_LEFT = {"aux", "auxpass", "neg"}
VP_RIGHT = {
    "dobj", "obj", "dative", "attr", "acomp", "oprd", "prep", "agent", "prt", "advmod", "xcomp", "ccomp", "npadvmod"
}


@dataclass(frozen=True)
class TreeNode:
    """One phrase of the caption."""

    label: str  # one of LABELS
    text: str
    tokens: tuple[int, int]  # spaCy token span [start, end)
    chars: tuple[int, int]  # character span [start, end) in the caption
    children: tuple[int, ...]  # indices into the node list, left to right
    parent: int | None  # None for the root S


def _phrases(doc: Doc) -> Iterator[tuple[int, int, str]]:
    """Candidate (start, end, label) spans, one or two per noun, preposition and verb."""
    for t in doc:
        if t.pos_ in ("NOUN", "PROPN") and t.dep_ != "compound":
            start = min((c.left_edge.i for c in t.lefts if c.dep_ in NP_LEFT), default=t.i)
            yield start, t.i + 1, "NP"
            right = [c.right_edge.i for c in t.rights if c.dep_ in NP_RIGHT]
            if right:
                yield start, max(right) + 1, "NP"
        elif t.dep_ == "prep" or t.pos_ == "ADP":
            objects = [c.right_edge.i for c in t.rights if c.dep_ in ("pobj", "pcomp")]
            if objects:
                yield t.i, max(objects) + 1, "PP"
        elif t.pos_ == "VERB" or (t.pos_ == "AUX" and t.dep_ == "ROOT"):
            left = [c.i for c in t.lefts if c.dep_ in VP_LEFT]
            right = [c.right_edge.i for c in t.rights if c.dep_ in VP_RIGHT]
            yield min(left, default=t.i), max(right, default=t.i) + 1, "VP"


def _trim(doc: Doc, start: int, end: int) -> tuple[int, int]:
    while start < end and doc[start].is_punct:
        start += 1
    while end > start and doc[end - 1].is_punct:
        end -= 1
    return start, end


def _chars(doc: Doc, start: int, end: int) -> tuple[int, int]:
    last: Token = doc[end - 1]
    return doc[start].idx, last.idx + len(last)


def parse_tree(caption: str) -> list[TreeNode]:
    """The caption's phrase tree in pre-order; node 0 is S over the whole caption (also for "" or "...")."""
    doc = parse(caption)
    spans = {(0, len(doc)): "S"}
    for start, end, label in _phrases(doc):
        start, end = _trim(doc, start, end)
        if start < end:
            spans.setdefault((start, end), label)
    order = sorted(spans, key=lambda s: (s[0], -s[1]))  # containers come before what they contain
    parents: list[int | None] = [None]
    for j, (start, end) in enumerate(order[1:], 1):
        containers = [i for i in range(j) if order[i][0] <= start and end <= order[i][1]]
        parents.append(min(containers, key=lambda i: order[i][1] - order[i][0]))
    nodes = []
    for j, (start, end) in enumerate(order):
        chars = (0, len(caption)) if j == 0 else _chars(doc, start, end)
        children = tuple(i for i, p in enumerate(parents) if p == j)
        text = caption[chars[0] : chars[1]]
        nodes.append(TreeNode(spans[(start, end)], text, (start, end), chars, children, parents[j]))
    return nodes
