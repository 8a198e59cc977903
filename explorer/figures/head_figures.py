"""The heads panel's pictures: the layer x head grid of margin shares (A and B on one scale, a diverging colour scale
centred on no share) and one head's map over the picture, in the greys every map of the page uses. No gradio here."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go
from PIL import Image

from explorer.drawing.maps import mapped
from explorer.explain.head_view import HeadView
from explorer.figures.viz_maps import PANEL_SIDE, _uri

A_RGB, B_RGB = "rgb(214,96,24)", "rgb(33,102,172)"  # towards A, towards B


def grid_figure(view: HeadView) -> go.Figure:
    """Each head's share of cos(A) - cos(B): orange towards A, blue towards B, white none; the chosen head boxed."""
    shares = view.shares.shares
    top = float(np.abs(shares).max()) or 1.0
    layers, heads = shares.shape
    text = [[f"{v:+.3f}" for v in row] for row in shares]
    fig = go.Figure(go.Heatmap(
        z=shares, x=list(range(heads)), y=list(range(layers)), zmin=-top, zmax=top, zmid=0, text=text,
        texttemplate="%{text}" if shares.size <= 64 else None, textfont=dict(size=11),
        colorscale=[[0, B_RGB], [0.5, "rgb(255,255,255)"], [1, A_RGB]],
        hovertemplate="layer %{y}, head %{x}: %{z:+.4f}<extra></extra>",
        colorbar=dict(title=dict(text="share of<br>cos(A) - cos(B)", side="top", font=dict(size=11)),
                      thickness=12, len=0.9)))
    layer, head = view.head
    fig.add_shape(type="rect", x0=head - 0.5, x1=head + 0.5, y0=layer - 0.5, y1=layer + 0.5,
                  line=dict(color="black", width=3))
    m = view.shares
    title = (f"Each head's share of the margin {m.margin:+.4f}<br><sup>MLPs {m.mlps.sum():+.4f}, stem "
             f"{m.stem:+.4f}; orange: towards A, blue: towards B</sup>")
    fig.update_layout(title=dict(text=title, font=dict(size=13), x=0.02, xanchor="left"),
                      xaxis=dict(title="head", dtick=1), yaxis=dict(title="layer", dtick=1, autorange="reversed"),
                      height=max(320, 60 + 34 * layers), margin=dict(l=50, r=10, t=70, b=40), plot_bgcolor="white")
    return fig


def head_map_figure(image: Image.Image, box: tuple[int, int, int, int], view: HeadView,
                    side: int = PANEL_SIDE) -> go.Figure:
    """The chosen head's share per patch beside the picture: white where its patches push towards A, dark towards B,
    mid grey none; the outline encloses the patches pushing towards A."""
    top = float(np.abs(view.map).max()) or 1.0
    picture = mapped(image, view.map, box, (-top, top), side)
    fig = go.Figure(go.Image(source=_uri(picture), hoverinfo="skip", name="head map"))
    layer, head = view.head
    fig.update_xaxes(range=[0, picture.width], visible=False)
    fig.update_yaxes(range=[picture.height, 0], visible=False, scaleanchor="x", constrain="domain")
    own = view.shares.class_token[view.head]
    title = html.escape(f"Layer {layer}, head {head}: its share per patch")
    key = (f"class token {own:+.4f}; right: white towards A,<br>dark towards B (\u00b1{top:.4f}); outlined: "
           f"towards A")
    fig.update_layout(title=dict(text=f"{title}<br><sup>{key}</sup>", font=dict(size=13), x=0.02, xanchor="left"),
                      height=side + 90, margin=dict(l=10, r=10, t=70, b=10), plot_bgcolor="white")
    return fig
