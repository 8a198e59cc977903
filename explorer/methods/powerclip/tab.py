"""PowerCLIP's tab, declared (the page builds it): the captions' phrase trees; a node's best region subset; exact vs
NLA values and times."""

from __future__ import annotations

from typing import Any

import pandas as pd
from PIL import Image

from explorer.core.markdown import plain
from explorer.images.inputs import whole_number
from explorer.methods.powerclip.method import PowerCLIPEvidence
from explorer.methods.powerclip.pictures import subset_overlay
from explorer.methods.powerclip.tree import tree_figure, tree_range
from explorer.methods.tabs import Figure, Menu, MethodTab, Picture, Row, Step, Table, Text

NODE_COLUMNS = ("caption", "node", "phrase", "exact", "NLA", "exact - NLA", "best regions")


def _nodes(evidence: PowerCLIPEvidence) -> list[tuple[str, int]]:
    return [(f"{n.label}: {n.text}", i) for i, n in enumerate(evidence.tree)]


def _table(analysis) -> tuple[pd.DataFrame, str]:
    rows, times = [], []
    for which, score in zip("AB", analysis.scores["powerclip"]):
        ev: PowerCLIPEvidence = score.evidence
        for node, al in zip(ev.tree, ev.alignments):
            rows.append({"caption": which, "node": node.label, "phrase": node.text, "exact": round(al.exact, 4),
                         "NLA": round(al.nla, 4), "exact - NLA": round(al.error, 5),
                         "best regions": ", ".join(f"r{i}" for i in al.best)})
        times.append(f"{which}: exact over {2 ** ev.exact_regions - 1} subsets of {ev.exact_regions} regions "
                     f"{1000 * ev.exact_seconds:.2f} ms, NLA {1000 * ev.nla_seconds:.2f} ms")
    return pd.DataFrame(rows, columns=list(NODE_COLUMNS)), "  \n".join(times)


def show_alignments(image: Image.Image, analysis: Any) -> tuple:
    """The note with scores and timings, the per-node table, and the nodes to pick from."""
    a, b = (s.evidence for s in analysis.scores["powerclip"])
    table, times = _table(analysis)
    pa, pb = (s.value for s in analysis.scores["powerclip"])
    note = (f"Model: **{plain(analysis.model)}**. PowerCLIP score A {pa:.4f}, B {pb:.4f} (A - B {pa - pb:+.4f}).  \n"
            f"{times}  \nRegions are numbered rN as on the pictures below; beside each picture, white: the node's "
            f"best subset, the one whose pooled patches have the highest cosine with the phrase, shown as the method "
            f"chose it, even where it lies on another object than the phrase names.")
    return note, table, _nodes(a), _nodes(b)


def draw_nodes(image: Image.Image, analysis: Any, node_a: int | None, node_b: int | None) -> tuple:
    """Both trees with the chosen node marked, and each chosen node's best region subset on the image."""
    scale = tree_range([score.evidence for score in analysis.scores["powerclip"]])  # A and B on one colour scale
    out = []
    for score, node in zip(analysis.scores["powerclip"], (node_a, node_b)):
        k = whole_number(node or 0, "The node", 0, len(score.evidence.tree) - 1)
        out.append(tree_figure(score.evidence, score.caption, k, scale))
        out.append(subset_overlay(image, score.evidence, k))
    return out[0], out[2], out[1], out[3], ""


_NOTE = Text("powerclip-note", waiting=True)
_NODES = Menu("Node of caption A", default=0, elem_id="node-a"), Menu("Node of caption B", default=0, elem_id="node-b")
_TREES = Figure("tree-a", "Tree of caption A"), Figure("tree-b", "Tree of caption B")
_SUBSETS = (Picture("subset-a", "Best region subset for the node of A"),
            Picture("subset-b", "Best region subset for the node of B"))
_TABLE = Table("powerclip-table", "Exact and NLA per node", NODE_COLUMNS, wide=True)
_DRAWN = Text("powerclip-draw-note")

TAB = MethodTab(
    "PowerCLIP",
    "Every subset of the image's regions against every phrase of the caption's tree: each node takes its best "
    "subset (exact enumeration), next to the linear-time NLA value over the same regions.",
    (_NOTE, Row(_NODES), Row(_TREES), Row(_SUBSETS), _TABLE, _DRAWN),
    (Step(show_alignments, (_NOTE, _TABLE, *_NODES)), Step(draw_nodes, (*_TREES, *_SUBSETS, _DRAWN), _NODES)))
