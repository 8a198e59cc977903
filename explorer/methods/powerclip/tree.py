"""PowerCLIP's phrase tree as a plotly figure: root on top, each node over its words, coloured by its exact best
cosine, named on a plate below it; edges that never cross a label."""

from __future__ import annotations

import html
import textwrap
from collections.abc import Sequence

import plotly.graph_objects as go

from explorer.drawing.marks import INK
from explorer.methods.powerclip.method import PowerCLIPEvidence


def _depths(evidence: PowerCLIPEvidence) -> list[int]:
    out = []
    for node in evidence.tree:
        out.append(0 if node.parent is None else out[node.parent] + 1)
    return out


def tree_range(evidences: Sequence[PowerCLIPEvidence]) -> tuple[float, float]:
    """One colour range for trees compared side by side: every node's exact best cosine."""
    values = [a.exact for ev in evidences for a in ev.alignments]
    return min(values), max(values)


TREE_LABEL_CHARS = 14  # a label's phrase wrapped to lines this long, so that neighbours' labels stay apart
TREE_TITLE_CHARS = 44  # the caption over the tree wrapped to lines this long (a phone's width)
TREE_LABEL_TOP, TREE_LINE_PX = 12, 15  # from a node's centre to the top of its label plate; a label line's height
TREE_NODE_PX = 14  # the chosen node's radius: edges end at its rim
TREE_MARGINS = dict(l=10, r=10, t=60, b=70)  # two lines of title; the colour bar below


def tree_labels(evidence: PowerCLIPEvidence) -> list[str]:
    """Each node's label: its kind, then its phrase wrapped below."""
    return ["<br>".join([n.label, *(html.escape(p, quote=False) for p in textwrap.wrap(n.text, TREE_LABEL_CHARS))])
            for n in evidence.tree]


def tree_plate_px(evidence: PowerCLIPEvidence) -> int:
    """From a node's centre to the bottom of the deepest label plate: every level leaves that much under its nodes."""
    return TREE_LABEL_TOP + TREE_LINE_PX * max(label.count("<br>") + 1 for label in tree_labels(evidence)) + 4


def _tree_geometry(evidence: PowerCLIPEvidence) -> tuple[list[int], list[float], int, float]:
    """Each node's depth and x (the middle of its words), the figure's height, and the y axis's pixels per unit: a
    level is a unit, half a unit above the root, the deepest plate's room below the last level."""
    depths = _depths(evidence)
    xs = [(n.tokens[0] + n.tokens[1] - 1) / 2 for n in evidence.tree]
    plate = tree_plate_px(evidence)
    plot = (plate + 60) * (max(depths) + 1)
    return depths, xs, plot + TREE_MARGINS["t"] + TREE_MARGINS["b"], (plot - plate) / (max(depths) + 0.5)


def tree_edges(evidence: PowerCLIPEvidence) -> list[tuple[float, float, float, float]]:
    """Each edge (x0, y0, x1, y1): from under its parent's label plate down to the top of its child's marker, above
    the child's plate, so that no edge crosses a label (every node's plate lies just below it)."""
    depths, xs, _, per_unit = _tree_geometry(evidence)
    below, above = tree_plate_px(evidence) / per_unit, TREE_NODE_PX / per_unit
    return [(xs[n.parent], -depths[n.parent] - below, xs[i], -depths[i] + above)
            for i, n in enumerate(evidence.tree) if n.parent is not None]


def tree_figure(evidence: PowerCLIPEvidence, caption: str, selected: int | None = None,
                scale: tuple[float, float] | None = None) -> go.Figure:
    """The caption's phrase tree, root on top; each node placed over its words, coloured by its exact best cosine on
    ``scale`` (by default this tree's own range: give trees shown side by side one ``tree_range``), named on a
    plate below it."""
    depths, xs, height, per_unit = _tree_geometry(evidence)
    edges = tree_edges(evidence)
    fig = go.Figure(go.Scatter(x=[v for e in edges for v in (e[0], e[2], None)],
                               y=[v for e in edges for v in (e[1], e[3], None)], mode="lines",
                               line=dict(color="#999"), hoverinfo="skip", showlegend=False))
    names = [f"{n.label}: {html.escape(n.text, quote=False)}" for n in evidence.tree]
    hover = [f"{name}<br>exact {a.exact:.3f} over regions {', '.join(f'r{i}' for i in a.best)}<br>NLA {a.nla:.3f} "
             f"(error {a.error:.2e})" for name, a in zip(names, evidence.alignments)]
    low, high = scale or tree_range([evidence])
    picked = [i == selected for i in range(len(evidence.tree))]
    fig.add_trace(go.Scatter(
        x=xs, y=[-d for d in depths], mode="markers", hovertext=hover, hoverinfo="text", showlegend=False,
        marker=dict(size=[26 if p else 16 for p in picked], color=[a.exact for a in evidence.alignments],
                    colorscale="Viridis", cmin=low, cmax=high, showscale=True,
                    colorbar=dict(title="exact cosine", orientation="h", y=-0.05, yanchor="top", thickness=12),
                    line=dict(width=[3 if p else 0 for p in picked], color=f"rgb{INK}")),
    ))
    for x, d, label in zip(xs, depths, tree_labels(evidence)):
        fig.add_annotation(x=x, y=-d, text=label, showarrow=False, yanchor="top", yshift=-TREE_LABEL_TOP,
                           font=dict(size=12), bgcolor="rgba(255, 255, 255, 0.9)")
    words = max(n.tokens[1] for n in evidence.tree)
    fig.update_xaxes(visible=False, range=[-1.5, words + 0.5])  # room for the labels of the end nodes
    fig.update_yaxes(visible=False, range=[-max(depths) - tree_plate_px(evidence) / per_unit, 0.5])
    title = "<br>".join(html.escape(line, quote=False) for line in textwrap.wrap(caption, TREE_TITLE_CHARS))
    fig.update_layout(title=dict(text=title, font=dict(size=15)), height=height, margin=TREE_MARGINS,
                      plot_bgcolor="white")
    return fig
