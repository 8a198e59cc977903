"""Results -> pictures: overlaid PIL images and plotly figures. No gradio here."""

from __future__ import annotations

import html
from functools import lru_cache

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative, sample_colorscale, unlabel_rgb
from PIL import Image, ImageDraw, ImageFont

from explorer.cache import LRUCache
from explorer.encoders import image_key
from explorer.methods.powerset_method import PowersetEvidence
from explorer.methods.sgi import SGIEvidence
from explorer.methods.tflocal import AttentionEvidence

PALETTE = qualitative.D3
DISPLAY_SIDE = 448


def segment_color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


DISPLAYS_KEPT = 16  # images scaled for display, by content: a caption edit draws on the same one again
_displays: LRUCache[tuple[Image.Image, float]] = LRUCache(DISPLAYS_KEPT)


def display_image(image: Image.Image, side: int = DISPLAY_SIDE) -> tuple[Image.Image, float]:
    """The image scaled so its longest side is ``side`` (small world scenes stay crisp), and the factor: a copy to
    draw on. Kept by content, as every caption edit draws its overlay on the same picture (a 512-px photo takes
    5 ms to scale, and 1 to hash)."""
    shown, factor = _displays.get_or_compute(f"{image_key(image)}:{side}", lambda: _scaled(image, side))
    return shown.copy(), factor


def _scaled(image: Image.Image, side: int) -> tuple[Image.Image, float]:
    factor = side / max(image.size)
    size = (max(1, round(image.width * factor)), max(1, round(image.height * factor)))
    resample = Image.Resampling.NEAREST if factor >= 2 else Image.Resampling.LANCZOS
    return image.convert("RGB").resize(size, resample), factor


def _font(size: int) -> ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow without sized default fonts
        return ImageFont.load_default()


def _box_on(canvas: Image.Image, box: tuple[float, float, float, float], f: float, inset: float = 0) -> tuple[float, ...]:
    """A region's box scaled onto the display canvas and inset, never inverted (thin images keep a 1 px box)."""
    x0, y0, x1, y1 = (v * f for v in box)
    x0, y0 = min(x0 + inset, canvas.width - 1), min(y0 + inset, canvas.height - 1)
    return x0, y0, max(x0, x1 - 1 - inset), max(y0, y1 - 1 - inset)


def _label(draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, color: str, font) -> None:
    """Text on a black plate, so it reads over any image."""
    draw.rectangle(draw.textbbox(xy, text, font=font), fill=(0, 0, 0))
    draw.text(xy, text, fill=color, font=font)


def sgi_overlay(image: Image.Image, evidence: SGIEvidence, side: int = DISPLAY_SIDE) -> Image.Image:
    """Each segment's best region drawn in the segment's colour, labelled with its region number and text."""
    canvas, f = display_image(image, side)
    draw = ImageDraw.Draw(canvas)
    font = _font(max(11, side // 32))
    width = max(2, side // 150)
    line = font.size if hasattr(font, "size") else 12
    for i, m in enumerate(evidence.matches):
        box = _box_on(canvas, evidence.regions[m.crop].box, f, inset=i * width)  # nested boxes stay visible
        color = segment_color(i)
        draw.rectangle(box, outline=color, width=width)
        _label(draw, (box[0] + width, box[1] + width + i * line), f"r{m.crop}: {m.segment.text} {m.similarity:.3f}",
               color, font)
    return canvas


SGI_ROW_GAP = 0.25  # the space between the caption rows of the SGI heat map, a fraction of the figure's height
SGI_X_TITLE = "region rN (r0 = whole image; x = each segment's best, as drawn on the image)"


def stacked_rows(n: int, gap: float) -> list[tuple[float, float]]:
    """The (bottom, top) paper coordinates of ``n`` rows stacked from the top, ``gap`` apart: the grid
    ``make_subplots(rows=n, cols=1, vertical_spacing=gap)`` lays out."""
    height = (1 - gap * (n - 1)) / n
    return [(1 - r * (height + gap) - height, 1 - r * (height + gap)) for r in range(n)]


def sgi_heatmap(evidence: dict[str, SGIEvidence]) -> go.Figure:
    """Segments x regions cosine heatmaps, one row per caption, best region of each segment marked.

    Built as one figure on ``stacked_rows``, not with ``make_subplots`` and a trace at a time: plotly validates the
    whole layout again at each of those steps (35 against 10 ms for two captions, and the page redraws it on every
    caption edit)."""
    zmin = min(float(ev.matrix.min()) for ev in evidence.values())
    zmax = max(float(ev.matrix.max()) for ev in evidence.values())
    data: list[go.Heatmap | go.Scatter] = []
    layout: dict = dict(height=220 * len(evidence) + 80, margin=dict(l=10, r=10, t=40, b=10), annotations=[])
    rows = stacked_rows(len(evidence), SGI_ROW_GAP)
    for row, ((title, ev), (bottom, top)) in enumerate(zip(evidence.items(), rows)):
        axis = str(row + 1) if row else ""  # plotly's axis names: x, y, then x2, y2...
        x, y = f"x{axis}", f"y{axis}"
        labels = [html.escape(m.segment.text, quote=False) for m in ev.matches]
        hover = [f"{r.source} {r.box}" for r in ev.regions]
        data.append(go.Heatmap(
            z=ev.matrix, y=labels, x=list(range(len(ev.regions))), customdata=np.array([hover] * len(labels)),
            zmin=zmin, zmax=zmax, colorscale="Viridis", showscale=row == 0, colorbar=dict(title="cosine"),
            hovertemplate="%{y}<br>region r%{x}: %{customdata}<br>cosine %{z:.3f}<extra></extra>", xaxis=x, yaxis=y))
        data.append(go.Scatter(x=[m.crop for m in ev.matches], y=labels, mode="markers", showlegend=False,
                               marker=dict(symbol="x", size=10, color="red"), hoverinfo="skip", xaxis=x, yaxis=y))
        layout[f"xaxis{axis}"] = dict(domain=[0.0, 1.0], anchor=y, title=dict(text=SGI_X_TITLE))
        layout[f"yaxis{axis}"] = dict(domain=[bottom, top], anchor=x)
        layout["annotations"].append(dict(  # the row's title, placed as make_subplots places subplot titles
            text=html.escape(title, quote=False), x=0.5, xref="paper", xanchor="center", y=top, yref="paper",
            yanchor="bottom", showarrow=False, font=dict(size=16)))  # captions are shown as typed, never as markup
    return go.Figure(data=data, layout=layout)


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


def coverage_sweep_figure(summary: dict) -> go.Figure:
    """The coverage sweep: held-out top-1 (with its interval) against the product probe's fit, a trace per object
    space, each point labelled with its coverage; the title gives the correlation over cells and its interval."""
    fig = go.Figure()
    for i, space in enumerate(dict.fromkeys(r["space"] for r in summary["rows"])):  # in the rows' order
        rows = [r for r in summary["rows"] if r["space"] == space]
        top1 = np.array([r["heldout_top1"] for r in rows])
        low, high = (np.array([r["heldout_ci"][k] for r in rows]) for k in (0, 1))
        fig.add_trace(go.Scatter(x=[r["product_fit"] for r in rows], y=top1, mode="markers+text", name=space,
                                 text=[f"c {r['coverage']}" for r in rows], textposition="top center",
                                 marker=dict(size=10, color=PALETTE[i % len(PALETTE)]),
                                 error_y=dict(type="data", symmetric=False, array=high - top1, arrayminus=top1 - low)))
    corr = summary["correlation"]
    said = "too few cells" if corr["r"] is None else f"r = {corr['r']:.2f} [{corr['ci'][0]:.2f}, {corr['ci'][1]:.2f}]"
    fig.update_layout(title=f"Coverage sweep: held-out recognition against the multiplicative fit ({said}, "
                            f"{corr['cells']} cells)",
                      xaxis_title="product probe: retrieval among test scenes (percent)",
                      yaxis_title="held-out objects named, top-1 (percent)", legend_title="object space")
    return fig


@lru_cache(maxsize=1)
def _viridis() -> np.ndarray:
    """A (256, 3) uint8 lookup table of plotly's Viridis."""
    return np.array([unlabel_rgb(c) for c in sample_colorscale("Viridis", list(np.linspace(0, 1, 256)))], dtype=np.uint8)


def attention_map(evidence: AttentionEvidence, tokens: list[int], layer: int | None, head: int | None) -> np.ndarray:
    """The chosen tokens' attention over the patch grid (h, w): mean over tokens, and over layers / heads when None."""
    maps = evidence.attention  # (layers, heads, tokens, patches)
    maps = maps.mean(0) if layer is None else maps[layer]
    maps = maps.mean(0) if head is None else maps[head]
    chosen = [t for t in tokens if 0 <= t < maps.shape[0]] or list(range(maps.shape[0]))
    return maps[chosen].mean(0).reshape(evidence.grid)


def attention_overlay(
    image: Image.Image, evidence: AttentionEvidence, tokens: list[int], layer: int | None = None,
    head: int | None = None, side: int = DISPLAY_SIDE, alpha: float = 0.6,
) -> Image.Image:
    """The image with the attention of the chosen tokens as a Viridis heat layer over the part the encoder sees."""
    heat = attention_map(evidence, tokens, layer, head)
    span = heat.max() - heat.min()
    heat = (heat - heat.min()) / span if span > 0 else np.zeros_like(heat)
    canvas, f = display_image(image, side)
    x0, y0, x1, y1 = (round(v * f) for v in evidence.box)
    cells = Image.fromarray((heat * 255).astype(np.uint8)).resize((max(1, x1 - x0), max(1, y1 - y0)), Image.Resampling.BILINEAR)
    colored = Image.fromarray(_viridis()[np.asarray(cells)])
    region = canvas.crop((x0, y0, x1, y1))
    canvas.paste(Image.blend(region, colored, alpha), (x0, y0))
    return canvas


def subset_overlay(image: Image.Image, evidence: PowersetEvidence, regions: tuple[int, ...], side: int = DISPLAY_SIDE) -> Image.Image:
    """The union of the chosen regions' pixel masks kept bright, everything else dimmed, each region outlined and
    numbered as in the PowerCLIP table."""
    canvas, f = display_image(image, side)
    union = np.zeros((image.height, image.width), dtype=bool)
    for i in regions:
        union |= evidence.regions[i].mask
    mask = Image.fromarray(union).resize(canvas.size, Image.Resampling.NEAREST)
    dim = Image.blend(canvas, Image.new("RGB", canvas.size, (0, 0, 0)), 0.65)
    out = Image.composite(canvas, dim, mask)
    draw = ImageDraw.Draw(out)
    font = _font(max(11, side // 32))
    width = max(2, side // 150)
    for j, i in enumerate(regions):
        box = _box_on(out, evidence.regions[i].box, f)
        draw.rectangle(box, outline=segment_color(j), width=width)
        _label(draw, (box[0] + width, box[1] + width), f"r{i}", segment_color(j), font)
    return out


def _regions(best: tuple[int, ...]) -> str:
    return ", ".join(f"r{i}" for i in best)


def _depths(evidence: PowersetEvidence) -> list[int]:
    out = []
    for node in evidence.tree:
        out.append(0 if node.parent is None else out[node.parent] + 1)
    return out


def tree_figure(evidence: PowersetEvidence, caption: str, selected: int | None = None) -> go.Figure:
    """The caption's phrase tree, root on top; each node placed over its words, coloured by its exact best cosine."""
    depths = _depths(evidence)
    xs = [(n.tokens[0] + n.tokens[1] - 1) / 2 for n in evidence.tree]
    fig = go.Figure()
    for i, node in enumerate(evidence.tree):
        if node.parent is not None:
            fig.add_trace(go.Scatter(x=[xs[node.parent], xs[i]], y=[-depths[node.parent], -depths[i]], mode="lines",
                                     line=dict(color="#999"), hoverinfo="skip", showlegend=False))
    values = [a.exact for a in evidence.alignments]
    names = [f"{n.label}: {html.escape(n.text, quote=False)}" for n in evidence.tree]
    hover = [f"{name}<br>exact {a.exact:.3f} over regions {_regions(a.best)}<br>NLA {a.nla:.3f} "
             f"(error {a.error:.2e})" for name, a in zip(names, evidence.alignments)]
    sizes = [26 if i == selected else 16 for i in range(len(evidence.tree))]
    fig.add_trace(go.Scatter(
        x=xs, y=[-d for d in depths], mode="markers+text", text=names,
        textposition="bottom center", hovertext=hover, hoverinfo="text", showlegend=False,
        marker=dict(size=sizes, color=values, colorscale="Viridis", showscale=True, colorbar=dict(title="cosine"),
                    line=dict(width=[3 if i == selected else 0 for i in range(len(evidence.tree))], color="red")),
    ))
    words = max(n.tokens[1] for n in evidence.tree)
    fig.update_xaxes(visible=False, range=[-1.5, words + 0.5])  # room for the labels of the end nodes
    fig.update_yaxes(visible=False, range=[-max(depths) - 1.0, 0.5])
    fig.update_layout(title=html.escape(caption, quote=False), height=160 + 90 * (max(depths) + 1),
                      margin=dict(l=10, r=10, t=40, b=10))
    return fig
