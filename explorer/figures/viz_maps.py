""""Where the model looks" as pictures: A's and B's maps, one figure each, drawn as the TFLocal tab draws
its own (the picture in its own colours with the map's top part outlined, the map in greys beside it: a veil or a
colour map over the picture would change the colours the captions name), with a titled grey colour bar, and each
text's tokens shaded by their share of the cosine (HTML). No gradio here."""

from __future__ import annotations

import base64
import html
import io
import textwrap
from typing import Sequence

import numpy as np
import plotly.graph_objects as go
from PIL import Image

from explorer.drawing import marks
from explorer.drawing.maps import MAP_FLOOR, mapped
from explorer.explain.looks import Looks, Panel

PANEL_SIDE = 320  # each picture's longest side, in pixels
TITLE_CHARS = 38  # a panel's title wrapped to lines this long
SHARE_RGB = (255, 127, 14)  # a token's shade, at full strength for the text's largest share
MAP_GREY = round(255 * MAP_FLOOR)
POINT = dict(symbol="x", size=13, color="white", line=dict(color="black", width=1.5))  # a map's point, on any colour


def _uri(image: Image.Image) -> str:
    buffer = io.BytesIO()
    image.save(buffer, format="WEBP", quality=90, method=0)
    return "data:image/webp;base64," + base64.b64encode(buffer.getvalue()).decode()


def scale_of(panels: Sequence[Panel]) -> tuple[float, float]:
    """A and B on one scale: from no relevance (0) to the larger of their maps' peaks (1 where neither has one)."""
    peaks = [float(p.map.max()) for p in panels if p.map is not None]
    return 0.0, max(peaks, default=0.0) or 1.0


def _title(which: str, panel: Panel) -> str:
    said = textwrap.wrap(f"{which}: \u201c{panel.text or panel.caption}\u201d", TITLE_CHARS)
    cosine = f"cosine {panel.cosine:.3f}" if panel.cosine is not None else "no such segment"
    if panel.said and panel.cosine is not None:  # the map's own number first; the global cosine named as such
        cosine = f"{panel.said}; the whole picture's cosine {panel.cosine:.3f}"
    return "<br>".join(html.escape(line) for line in [*said, *textwrap.wrap(cosine, TITLE_CHARS)])


def map_figure(image: Image.Image, shown: Looks, which: int, side: int = PANEL_SIDE) -> go.Figure:
    """Caption ``which``'s picture (0: A, 1: B) with its map's point marked, or saying why it has no map, and a colour
    bar titled with what the maps are, on the scale A and B share: the page lays A and B side by side where the
    screen is wide enough, one above the other where it is not."""
    panel, name = shown.panels[which], "AB"[which]
    scale = scale_of(shown.panels)
    heat = panel.map if panel.map is not None else np.zeros((image.height, image.width), dtype=np.float32)
    picture = mapped(image, heat, (0, 0, image.width, image.height), scale, side)
    f = side / max(image.size)
    beside = round(image.width * f) + marks.BESIDE_GAP  # from a point on the picture to the same point on the map
    fig = go.Figure(go.Image(source=_uri(picture), hoverinfo="skip", name=f"map {name}"))
    if panel.point is not None:  # marked on the picture and on the map beside it
        x, y = panel.point[0] * f, panel.point[1] * f
        fig.add_trace(go.Scatter(x=[x, x + beside], y=[y, y], mode="markers", marker=POINT, name="where it points",
                                 showlegend=False))
    if panel.map is None:  # said over the map's half, blank without a map: the picture stays in view
        fig.add_annotation(text="<br>".join(textwrap.wrap(html.escape(f"No map: {panel.missing}."), 24)),
                           x=beside + round(image.width * f) / 2, y=picture.height / 2, showarrow=False,
                           bgcolor="white")
    key = ("right: the map, dark least, white most;<br>left: the picture in its own colours,<br>outlined over the "
           "upper half of the scale;<br>\u00d7 where it points")  # lines short enough for a phone
    bar = dict(title=dict(text=f"{html.escape(shown.scale_title)}<br>{key}", side="top", font=dict(size=11)),
               orientation="h",
               x=0, xanchor="left", y=0, yanchor="top", len=1, thickness=12, outlinewidth=1,
               **(dict(tickvals=[0, 1], ticktext=["outside", "inside"]) if shown.region else {}))
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", hoverinfo="skip", showlegend=False,
                             marker=dict(color=list(scale), cmin=scale[0], cmax=scale[1], showscale=True, colorbar=bar,
                                         colorscale=[[0, f"rgb({MAP_GREY},{MAP_GREY},{MAP_GREY})"],
                                                     [1, "rgb(255,255,255)"]])))
    fig.update_xaxes(range=[0, picture.width], visible=False)
    fig.update_yaxes(range=[picture.height, 0], visible=False, scaleanchor="x", constrain="domain")
    fig.update_layout(title=dict(text=_title(name, panel), font=dict(size=13), x=0.02, xanchor="left"),
                      height=side + 150, margin=dict(l=10, r=10, t=80, b=140), plot_bgcolor="white")
    return fig


def maps_figures(image: Image.Image, shown: Looks, side: int = PANEL_SIDE) -> tuple[go.Figure, go.Figure]:
    """A's and B's figures (``map_figure``), on one scale."""
    return map_figure(image, shown, 0, side), map_figure(image, shown, 1, side)


def token_row(tokens: Sequence[str], shares: np.ndarray) -> str:
    """A text's tokens as HTML, each shaded by its share of the cosine (full strength for the largest) and with it."""
    top = float(np.max(shares)) if len(shares) else 0.0
    spans = []
    for token, share in zip(tokens, shares):
        alpha = share / top if top > 0 else 0.0
        spans.append(f'<span class="share" style="background: rgba{(*SHARE_RGB, round(float(alpha), 2))}; '
                     f'padding: 1px 4px; border-radius: 3px" title="{100 * share:.1f}% of the cosine">'
                     f'{html.escape(token)}<sub>{100 * share:.0f}%</sub></span>')
    return " ".join(spans)


def token_rows(shown: Looks) -> str:
    """A's and B's tokens, shaded by their share of each text's cosine, with a line on what the shade is."""
    rows = [f"<div><b>{k}</b>: {token_row(p.tokens, p.shares) if p.tokens else '(no such segment)'}</div>"
            for k, p in zip("AB", shown.panels)]
    key = ("<div><small>Shade: each token's share of its text's cosine (|gradient \u00d7 input| on the token's "
           "embedding), darkest for the largest.</small></div>")
    return f'<div class="token-shares">{"".join(rows)}{key}</div>'
