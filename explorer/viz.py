"""Results -> pictures: overlaid PIL images and plotly figures. No gradio here."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots
from PIL import Image, ImageDraw, ImageFont

from explorer.methods.sgi import SGIEvidence

PALETTE = qualitative.D3
DISPLAY_SIDE = 448


def segment_color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def display_image(image: Image.Image, side: int = DISPLAY_SIDE) -> tuple[Image.Image, float]:
    """The image scaled so its longest side is ``side`` (small world scenes stay crisp), and the factor."""
    factor = side / max(image.size)
    size = (max(1, round(image.width * factor)), max(1, round(image.height * factor)))
    resample = Image.Resampling.NEAREST if factor >= 2 else Image.Resampling.LANCZOS
    return image.convert("RGB").resize(size, resample), factor


def _font(size: int) -> ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow without sized default fonts
        return ImageFont.load_default()


def sgi_overlay(image: Image.Image, evidence: SGIEvidence, side: int = DISPLAY_SIDE) -> Image.Image:
    """Each segment's best region drawn in the segment's colour and labelled with its text."""
    canvas, f = display_image(image, side)
    draw = ImageDraw.Draw(canvas)
    font = _font(max(11, side // 32))
    width = max(2, side // 150)
    for i, m in enumerate(evidence.matches):
        x0, y0, x1, y1 = (v * f for v in evidence.regions[m.crop].box)
        inset = i * width  # nested boxes stay visible when segments pick the same crop
        box = (x0 + inset, y0 + inset, x1 - 1 - inset, y1 - 1 - inset)
        color = segment_color(i)
        draw.rectangle(box, outline=color, width=width)
        label = f"{m.segment.text} {m.similarity:.3f}"
        tx, ty = box[0] + width, box[1] + width + i * (font.size if hasattr(font, "size") else 12)
        bbox = draw.textbbox((tx, ty), label, font=font)
        draw.rectangle(bbox, fill=(0, 0, 0))
        draw.text((tx, ty), label, fill=color, font=font)
    return canvas


def sgi_heatmap(evidence: dict[str, SGIEvidence]) -> go.Figure:
    """Segments x regions cosine heatmaps, one row per caption, best region of each segment marked."""
    fig = make_subplots(rows=len(evidence), cols=1, subplot_titles=list(evidence), vertical_spacing=0.25)
    zmin = min(float(ev.matrix.min()) for ev in evidence.values())
    zmax = max(float(ev.matrix.max()) for ev in evidence.values())
    for row, ev in enumerate(evidence.values(), start=1):
        labels = [m.segment.text for m in ev.matches]
        hover = [f"{r.source} {r.box}" for r in ev.regions]
        fig.add_trace(
            go.Heatmap(z=ev.matrix, y=labels, x=list(range(len(ev.regions))), customdata=np.array([hover] * len(labels)),
                       zmin=zmin, zmax=zmax, colorscale="Viridis", showscale=row == 1,
                       hovertemplate="%{y}<br>region %{x}: %{customdata}<br>cosine %{z:.3f}<extra></extra>"),
            row=row, col=1,
        )
        fig.add_trace(
            go.Scatter(x=[m.crop for m in ev.matches], y=labels, mode="markers", showlegend=False,
                       marker=dict(symbol="x", size=10, color="red"), hoverinfo="skip"),
            row=row, col=1,
        )
        fig.update_xaxes(title_text="region (0 = whole image)", row=row, col=1)
    fig.update_layout(height=220 * len(evidence) + 80, margin=dict(l=10, r=10, t=40, b=10))
    return fig


def binding_mds_figure(observed: np.ndarray, reconstructed: np.ndarray, labels: list[str]) -> go.Figure:
    """Observed object embeddings beside their colour + shape reconstructions, joined by lines (3D MDS)."""
    fig = go.Figure()
    for pts, name, symbol in ((observed, "observed object", "circle"), (reconstructed, "colour + shape", "diamond")):
        fig.add_trace(go.Scatter3d(x=pts[:, 0], y=pts[:, 1], z=pts[:, 2], mode="markers+text", name=name, text=labels,
                                   marker=dict(size=5, symbol=symbol), textfont=dict(size=9)))
    xs, ys, zs = [], [], []
    for a, b in zip(observed, reconstructed):
        xs += [a[0], b[0], None]
        ys += [a[1], b[1], None]
        zs += [a[2], b[2], None]
    fig.add_trace(go.Scatter3d(x=xs, y=ys, z=zs, mode="lines", name="residual", line=dict(color="grey")))
    fig.update_layout(height=560, margin=dict(l=0, r=0, t=30, b=0), title="Objects: observed vs additive (3D MDS)")
    return fig
