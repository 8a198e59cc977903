"""One benchmark item as a model reads it: its captions x images cosines as a heat map, each image's own caption
boxed, so that two models' readings of the same item sit side by side on one colour scale."""

from __future__ import annotations

import html
import textwrap
from typing import Sequence

import numpy as np
import plotly.graph_objects as go

from explorer.drawing.marks import INK

CAPTION_WRAP = 28  # characters a caption's line holds beside the cells (a phone shows the two maps one above the other)
TITLE_WRAP = 44  # characters a line of the title holds: a phone's width


def cosine_span(*cosines: np.ndarray) -> tuple[float, float]:
    """The colour scale's ends shared by several readings of one item: their lowest and highest cosine."""
    return min(float(c.min()) for c in cosines), max(float(c.max()) for c in cosines)


def cosine_grid(cosines: np.ndarray, captions: Sequence[str], right: Sequence[int], title: str,
                span: tuple[float, float]) -> go.Figure:
    """``cosines[c, i]`` (caption c, image i) as a heat map on the colour scale ``span``: captions down, images
    across, each cell's value written in it, image i's own caption ``right[i]`` boxed; ``title`` above."""
    names = ["<br>".join(textwrap.wrap(f"{c}: {html.escape(text, quote=False)}", CAPTION_WRAP)) or f"{c}:"
             for c, text in enumerate(captions)]
    images = [f"image {i}" for i in range(cosines.shape[1])]
    heading = textwrap.wrap(html.escape(title, quote=False), TITLE_WRAP)
    fig = go.Figure(go.Heatmap(
        z=cosines, x=images, y=names, zmin=span[0], zmax=span[1], colorscale="Viridis", texttemplate="%{z:.3f}",
        textfont=dict(size=13), colorbar=dict(title=dict(text="cosine", side="top"), thickness=10),
        hovertemplate="%{y}<br>%{x}<br>cosine %{z:.4f}<extra></extra>"))
    fig.update_layout(
        title=dict(text="<br>".join(heading), font=dict(size=14)), height=100 + 20 * len(heading) + 70 * len(captions),
        margin=dict(l=10, r=10, t=40 + 20 * len(heading), b=10),
        shapes=[dict(type="rect", x0=i - 0.5, x1=i + 0.5, y0=own - 0.5, y1=own + 0.5, line=dict(color=f"rgb{INK}",
                                                                                              width=3))
                for i, own in enumerate(right) if own >= 0])  # a candidate image of one caption: none
    fig.update_yaxes(autorange="reversed", type="category", automargin=True)
    fig.update_xaxes(type="category", side="top")
    return fig
