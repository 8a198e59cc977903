"""Results -> pictures: overlaid PIL images and plotly figures. No gradio here. The overlays' boxes, badges and
strips of text are ``explorer.figures.marks``'s: neutral, and named below the picture."""

from __future__ import annotations

import html
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go
from PIL import Image, ImageDraw
from plotly.colors import qualitative

from explorer.figures import marks
from explorer.core import image_state
from explorer.core.image_state import ImageState
from explorer.images.fit import frame_of, view_state
from explorer.figures.marks import INK, Mark, Rect
from explorer.methods import FigureInfo, in_page_order, resolve
from explorer.methods.powerset_method import NodeAlignment, PowersetEvidence
from explorer.methods.sgi import SGIEvidence
from explorer.methods.tflocal import AttentionEvidence
from explorer.images.regions import Region
from explorer.world.palette import FILLS

PALETTE = qualitative.D3  # the coverage sweep's object spaces: categories, not world colours
DISPLAY_SIDE = 448
MUTED = (150, 150, 150)  # a thin line that marks, not a mark: a picture's own edges inside its padding



@dataclass(frozen=True)
class Place:
    """Where a point of the picture the methods read lands on a display canvas: moved by (dx, dy) onto the picture's
    own frame (a view of it, ``explorer.images.fit``, is the picture moved), then scaled by ``f``."""

    f: float
    dx: float = 0.0
    dy: float = 0.0

    def box(self, box: Sequence[float]) -> tuple[float, float, float, float]:
        x0, y0, x1, y1 = box
        return ((x0 + self.dx) * self.f, (y0 + self.dy) * self.f, (x1 + self.dx) * self.f, (y1 + self.dy) * self.f)


def display_image(image: Image.Image | ImageState, side: int = DISPLAY_SIDE) -> tuple[Image.Image, Place]:
    """The picture scaled so its longest side is ``side`` (small world scenes stay crisp), and where the methods'
    points land on it: a copy to draw on. A view's state (``fit.view_state``) is drawn on the picture it was made
    from, its points moved back onto that picture's frame. Kept in the state, as every caption edit draws its overlay
    on the same picture (a photo costs more to scale again than to hash; given the state, nothing is hashed)."""
    state = image_state.of(image)
    frame = frame_of(state)
    shown, factor = state.get_or_compute(("display", side), lambda: _scaled(frame[1] if frame else state.image, side))
    dx, dy = frame[0].box[:2] if frame else (0, 0)
    return shown.copy(), Place(factor, dx, dy)


def _scaled(image: Image.Image, side: int) -> tuple[Image.Image, float]:
    factor = side / max(image.size)
    size = (max(1, round(image.width * factor)), max(1, round(image.height * factor)))
    resample = Image.Resampling.NEAREST if factor >= 2 else Image.Resampling.LANCZOS
    return image.convert("RGB").resize(size, resample), factor


def model_view(image: Image.Image | ImageState, box: tuple[int, int, int, int], fill: tuple[int, int, int] = (0, 0, 0),
               side: int = DISPLAY_SIDE) -> Image.Image:
    """What the model's input holds of the picture: ``box`` (x0, y0, x1, y1 in the picture's pixels) outlined just
    outside, the picture's part outside it greyed and washed out (cut before the model reads it), and where the box
    reaches past the picture, the padding in ``fill`` as the model gets it; inside the box every pixel of the picture
    is as shown elsewhere on the page. A box that is the picture: the picture as it is."""
    picture = image_state.of(image).image
    w, h = picture.size
    if tuple(box) == (0, 0, w, h):
        return display_image(picture, side)[0]
    left, top = min(box[0], 0), min(box[1], 0)
    f = side / max(max(box[2], w) - left, max(box[3], h) - top)
    scaled = picture.convert("RGB").resize((max(1, round(w * f)), max(1, round(h * f))), Image.Resampling.LANCZOS)
    size = (round((max(box[2], w) - left) * f), round((max(box[3], h) - top) * f))
    at = (round(-left * f), round(-top * f))
    x0, y0, x1, y1 = (round((v - o) * f) for v, o in zip(box, (left, top, left, top)))
    canvas = Image.new("RGB", size, marks.PAPER)
    canvas.paste(Image.blend(scaled.convert("L").convert("RGB"), Image.new("RGB", scaled.size, marks.PAPER), 0.6), at)
    kept = Image.new("RGB", (x1 - x0, y1 - y0), tuple(fill))
    kept.paste(scaled, (at[0] - x0, at[1] - y0))
    canvas.paste(kept, (x0, y0))
    draw = ImageDraw.Draw(canvas)
    if box[0] < 0 or box[1] < 0 or box[2] > w or box[3] > h:  # padded: the picture's own edges, thin, on the padding
        draw.rectangle((at[0] - 1, at[1] - 1, at[0] + scaled.width, at[1] + scaled.height), outline=MUTED, width=1)
    width = marks.line_width(max(size))
    draw.rectangle((x0 - width, y0 - width, x1 + width - 1, y1 + width - 1), outline=INK, width=width)
    return canvas


def _box_on(canvas: Image.Image, box: tuple[float, float, float, float], place: Place, inset: float = 0) -> Rect:
    """A region's box placed on the display canvas, inset (outset where negative), kept on the canvas and never
    inverted (thin images keep a 1 px box)."""
    x0, y0, x1, y1 = place.box(box)
    x0, y0 = min(max(0, x0 + inset), canvas.width - 1), min(max(0, y0 + inset), canvas.height - 1)
    return x0, y0, min(max(x0, x1 - 1 - inset), canvas.width - 1), min(max(y0, y1 - 1 - inset), canvas.height - 1)


def sgi_overlay(image: Image.Image | ImageState, evidence: SGIEvidence, side: int = DISPLAY_SIDE) -> Image.Image:
    """Each segment's best region boxed and numbered; below the picture, each number's segment, region and cosine."""
    canvas, place = display_image(image, side)
    step = marks.line_width(side) + 2  # nested boxes (two segments on one region) stay apart
    shown = [Mark(_box_on(canvas, evidence.regions[m.crop].box, place, inset=i * step), str(i + 1),
                  f"\u201c{m.segment.text}\u201d: region r{m.crop}, cosine {m.similarity:.3f}")
             for i, m in enumerate(evidence.matches)]
    return marks.labelled(canvas, shown, [], side)


SGI_ROW_GAP = 0.15  # the space between the captions' blocks of the SGI heat map, a fraction of the figure's height
SGI_COLUMNS = 14  # regions shown per caption: each segment's best, then the best-scoring others
SGI_X_TITLE = "segments, numbered<br>as on the pictures"
SGI_Y_TITLE = "regions, best first (boxed: each segment's best)"
SGI_SEGMENT_CHARS = 8  # a segment's name wrapped to lines this long: three segments fit across a phone
SGI_TITLE_CHARS = 36  # a caption's title wrapped to lines this long: a phone's width holds one
SGI_ROW_PX = 26  # a region's row: room for its cosine, written in the cell, and its name's two lines


def stacked_rows(n: int, gap: float) -> list[tuple[float, float]]:
    """The (bottom, top) paper coordinates of ``n`` rows stacked from the top, ``gap`` apart: the grid
    ``make_subplots(rows=n, cols=1, vertical_spacing=gap)`` lays out."""
    height = (1 - gap * (n - 1)) / n
    return [(1 - r * (height + gap) - height, 1 - r * (height + gap)) for r in range(n)]


def sgi_columns(evidence: SGIEvidence, k: int = SGI_COLUMNS) -> list[int]:
    """The regions a caption's row shows: each segment's best, then the others with the highest cosine, up to ``k``,
    ordered by their best cosine over the segments."""
    best = list(dict.fromkeys(m.crop for m in evidence.matches))
    top = evidence.matrix.max(0)
    others = [i for i in np.argsort(-top, kind="stable").tolist() if i not in best]
    return sorted(best + others[: max(0, k - len(best))], key=lambda i: -top[i])


def region_name(i: int, region: Region, scale: float = 1.0, separator: str = " ") -> str:
    """'r12 crop 64×64 @0,32': its number, kind, size and top-left corner in the image's pixels, or in the uploaded
    picture's own pixels with ``scale`` (its width over the width the page read it at); ``separator`` between its
    kind and its size ("<br>": on two lines)."""
    if region.source == "image":
        return f"r{i} whole image"
    x0, y0, x1, y1 = (round(v * scale) for v in region.box)
    return f"r{i} {region.source}{separator}{x1 - x0}\u00d7{y1 - y0} @{x0},{y0}"


def segment_label(k: int, text: str) -> str:
    """Segment ``k``'s column name: its number as on the overlays and its words, wrapped short, escaped."""
    return "<br>".join(html.escape(line, quote=False) for line in textwrap.wrap(f"{k + 1}. {text}", SGI_SEGMENT_CHARS))


def sgi_heatmap(evidence: dict[str, SGIEvidence], scale: float = 1.0) -> go.Figure:
    """Regions x segments cosine heat maps, a block per caption, one above the other: a row per ``sgi_columns``
    region (best first, down the block), a column per segment (numbered as on the overlays), each segment's best cell
    boxed. Segments across and regions down, so that a phone's width holds a caption's few segments with each cosine
    readable in its cell, where fourteen regions across would not. Each block's title ends at its heat map's right
    edge and wraps, so that a phone shows it whole; regions are named in pixels times ``scale`` (``region_name``).

    Built as one figure on ``stacked_rows``, not with ``make_subplots`` and a trace at a time: plotly validates the
    whole layout again at each of those steps (several times slower for two captions: docs/PERFORMANCE.md, "Design
    decisions"), and the page redraws it on every caption edit."""
    zmin = min(float(ev.matrix.min()) for ev in evidence.values())
    zmax = max(float(ev.matrix.max()) for ev in evidence.values())
    data: list[go.Heatmap] = []
    block = SGI_ROW_PX * SGI_COLUMNS + 90  # the rows, the segments' names under them and the next block's title
    layout: dict = dict(height=block * len(evidence) + 110, margin=dict(l=10, r=10, t=64, b=10), annotations=[],
                        shapes=[])
    rows = stacked_rows(len(evidence), SGI_ROW_GAP)
    for row, ((title, ev), (bottom, top)) in enumerate(zip(evidence.items(), rows)):
        axis = str(row + 1) if row else ""  # plotly's axis names: x, y, then x2, y2...
        x, y = f"x{axis}", f"y{axis}"
        columns = sgi_columns(ev)
        labels = [segment_label(k, m.segment.text) for k, m in enumerate(ev.matches)]
        data.append(go.Heatmap(
            z=ev.matrix[:, columns].T, x=labels, y=[region_name(i, ev.regions[i], scale, "<br>") for i in columns], zmin=zmin,
            zmax=zmax, colorscale="Viridis", showscale=row == 0, texttemplate="%{z:.2f}", textfont=dict(size=12),
            colorbar=dict(title=dict(text="cosine", side="top"), thickness=10, xpad=4, y=(bottom + top) / 2,
                          yanchor="middle", len=top - bottom),  # beside the first block only, clear of the titles
            hovertemplate="%{x}<br>%{y}<br>cosine %{z:.3f}<extra></extra>", xaxis=x, yaxis=y))
        layout["shapes"] += [dict(  # each segment's best cell boxed, in cells: it scales with the figure's width
            type="rect", xref=x, yref=y, x0=k - 0.5, x1=k + 0.5, y0=columns.index(m.crop) - 0.5,
            y1=columns.index(m.crop) + 0.5, line=dict(color=f"rgb{INK}", width=3)) for k, m in enumerate(ev.matches)]
        layout[f"xaxis{axis}"] = dict(domain=[0.0, 1.0], anchor=y, type="category", tickangle=0, automargin=True,
                                      title=dict(text=SGI_X_TITLE if row == len(rows) - 1 else ""))  # said once
        layout[f"yaxis{axis}"] = dict(domain=[bottom, top], anchor=x, type="category", automargin=True,
                                      autorange="reversed", tickfont=dict(size=10),
                                      title=dict(text=SGI_Y_TITLE if row == 0 else ""))
        layout["annotations"].append(dict(  # the block's title above it, ending at its right edge (the region names
            # on its left leave a phone's heat map narrower than a caption)
            text="<br>".join(textwrap.wrap(html.escape(title, quote=False), SGI_TITLE_CHARS)), x=1.0, xref="paper",
            xanchor="right", align="right", y=top, yref="paper", yanchor="bottom", showarrow=False,
            font=dict(size=15)))  # captions are shown as typed, never as markup
    return go.Figure(data=data, layout=layout)


SHAPE_SYMBOLS = {"circle": "circle", "square": "square", "triangle": "triangle-up", "star": "star",
                 "hexagon": "hexagon", "cross": "cross", "diamond": "diamond"}  # a world shape -> plotly's marker


def object_marker(label: str) -> tuple[str, str]:
    """A world object's name ('red circle') -> its paint and marker symbol, so that the point reads as the object."""
    color, _, shape = label.rpartition(" ")
    return "rgb({}, {}, {})".format(*FILLS.get(color, (128, 128, 128))), SHAPE_SYMBOLS.get(shape, "circle")


def main_plane(*clouds: np.ndarray) -> tuple[list[np.ndarray], float]:
    """The point clouds projected on the two main axes of all of them, and the share of their spread kept."""
    points = np.concatenate(clouds)
    centre = points.mean(0)
    _, spread, axes = np.linalg.svd(points - centre, full_matrices=False)
    kept = float((spread[:2] ** 2).sum() / max((spread**2).sum(), 1e-12))
    return [(c - centre) @ axes[:2].T for c in clouds], kept


def binding_mds_figure(observed: np.ndarray, reconstructed: np.ndarray, labels: list[str]) -> go.Figure:
    """Observed object embeddings (filled) beside their colour + shape reconstructions (hollow), joined by lines: the
    3-D MDS seen along its two main axes, each point drawn as its object (paint and shape), named on hover."""
    (seen, rebuilt), kept = main_plane(observed, reconstructed)
    paints, symbols = zip(*map(object_marker, labels))
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[v for a, b in zip(seen[:, 0], rebuilt[:, 0]) for v in (a, b, None)],
                             y=[v for a, b in zip(seen[:, 1], rebuilt[:, 1]) for v in (a, b, None)],
                             mode="lines", name="residual", line=dict(color="rgb(90, 90, 90)"), hoverinfo="skip"))
    for pts, name, hollow in ((rebuilt, "colour + shape (hollow)", True), (seen, "observed object (filled)", False)):
        outline = dict(width=2 if hollow else 1, color=f"rgb{INK}")
        fig.add_trace(go.Scatter(
            x=pts[:, 0], y=pts[:, 1], mode="markers", name=name, hovertext=labels,
            hovertemplate=f"%{{hovertext}}<extra>{name}</extra>",
            marker=dict(size=12 if hollow else 14, color=list(paints), line=outline,
                        symbol=[f"{s}-open" if hollow else s for s in symbols])))
    fig.update_xaxes(title="main axis 1", automargin=True, zeroline=False)
    fig.update_yaxes(title="main axis 2", automargin=True, zeroline=False, scaleanchor="x")
    fig.update_layout(height=560, margin=dict(l=60, r=20, t=70, b=60), plot_bgcolor="rgb(180, 180, 180)",
                      title=f"Objects: observed vs colour + shape<br><sub>the 3-D MDS along its two main axes, "
                            f"{kept:.0%} of its spread</sub>", legend=dict(orientation="h", y=-0.15))
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


MAP_FLOOR = 0.3  # a map's darkest grey, a share of white, where it is least; white where it is most
TOP_LEVEL = 0.5  # the picture's outline encloses the map's upper half of its scale (from least to most)
ATTENTION_TITLE = "attention per patch (share of the token's total)"


def _grid_over(grid: np.ndarray, box: tuple[int, int, int, int], place: Place,
               resample: Image.Resampling) -> tuple[Image.Image, tuple[int, int]]:
    """A (h, w) uint8 patch grid scaled over the part of a display canvas that ``box`` covers in the picture the
    methods read, and that part's top-left corner (left of or above the canvas where the box reaches past it)."""
    x0, y0, x1, y1 = (round(v) for v in place.box(box))
    return Image.fromarray(grid).resize((max(1, x1 - x0), max(1, y1 - y0)), resample), (x0, y0)


def _span(maps: Sequence[np.ndarray]) -> tuple[float, float]:
    return min(float(m.min()) for m in maps), max(float(m.max()) for m in maps)


def map_levels(image: Image.Image, heat: np.ndarray, box: tuple[int, int, int, int], scale: tuple[float, float],
               side: int) -> tuple[Image.Image, np.ndarray]:
    """The display canvas and ``heat`` on it, a level a pixel from 0 (``scale``'s low, and outside ``box``, the part
    of the image the map covers) to 1 (its high)."""
    low, high = scale
    clear = np.clip((heat - low) / (high - low), 0, 1) if high > low else np.ones_like(heat)
    canvas, place = display_image(image, side)
    cells, corner = _grid_over((clear * 255).astype(np.uint8), box, place, Image.Resampling.BILINEAR)
    level = Image.new("L", canvas.size, 0)
    level.paste(cells, corner)  # clipped to the canvas
    return canvas, np.asarray(level, dtype=np.float32) / 255


def grey_map(level: np.ndarray) -> Image.Image:
    """A map's levels as greys: MAP_FLOOR of white where least, white where most."""
    return Image.fromarray((255 * (MAP_FLOOR + (1 - MAP_FLOOR) * level)).round().astype(np.uint8)).convert("RGB")


def mapped(image: Image.Image, heat: np.ndarray, box: tuple[int, int, int, int], scale: tuple[float, float],
           side: int) -> Image.Image:
    """The picture in its own colours, every pixel as it is but for the outline of the part where ``heat`` reaches
    TOP_LEVEL of ``scale`` (low, high), and beside it the map in greys (dark where least, white where most) with the
    same outline. Nothing is veiled or tinted: on a page about which object has which colour, a yellow star under a
    dark veil reads olive and white reads grey."""
    canvas, level = map_levels(image, heat, box, scale, side)
    top = marks.top_region(level, TOP_LEVEL)
    shown = marks.outline_region(grey_map(level), top, side)
    return marks.beside(marks.outline_region(canvas, top, side), shown)


def attention_overlay(
    image: Image.Image, evidence: AttentionEvidence, tokens: list[int], layer: int | None = None,
    head: int | None = None, side: int = DISPLAY_SIDE, scale: tuple[float, float] | None = None,
) -> Image.Image:
    """The image in its own colours with the part the chosen tokens attend to most outlined, and the attention
    beside it in greys (``mapped``). ``scale``: the attention at the darkest grey and at white; by default the map's
    own least and most."""
    heat = evidence.attention_map(tokens, layer, head)
    return mapped(image, heat, evidence.box, scale or _span([heat]), side)


def _scale_bar(canvas: Image.Image, scale: tuple[float, float], side: int) -> Image.Image:
    """The map's colour bar under the canvas: attention from ``scale``'s least (darkest) to most (white), in %."""
    ticks = [f"{100 * v:.3g}%" for v in np.linspace(*scale, 5)]
    title = f"{ATTENTION_TITLE}, beside the picture; outlined on it: the upper half of the scale"
    return marks.ramp_strip(canvas, title, MAP_FLOOR, ticks, side)


def attention_pictures(
    image: Image.Image, shown: Sequence[tuple[AttentionEvidence, list[int]]], layer: int | None, head: int | None,
    side: int = DISPLAY_SIDE,
) -> list[Image.Image]:
    """Each (evidence, tokens) as ``attention_overlay`` draws it, all on one scale, each with that scale's bar below."""
    maps = [ev.attention_map(tokens, layer, head) for ev, tokens in shown]
    scale = _span(maps)
    return [_scale_bar(mapped(image, heat, ev.box, scale, side), scale, side) for heat, (ev, _) in zip(maps, shown)]


def _pooled(evidence: PowersetEvidence, i: int) -> str:
    """What region ``i`` is and what of it the method pools: its cells of the encoder's patch grid."""
    region, cells = evidence.regions[i], evidence.masks[i]
    return f"{region.source} region of {int(region.mask.sum())} pixels: {int(cells.sum())} of {cells.size} patches"


def _subset_header(evidence: PowersetEvidence, alignment: NodeAlignment) -> str:
    node = alignment.node
    return (f"{node.label} \u201c{node.text}\u201d: cosine {alignment.exact:.3f}, the best of all "
            f"{2 ** evidence.exact_regions - 1} subsets of regions, wherever they lie (the method's choice). "
            f"Beside the picture, white: the patches it pools.")


def pooled_cells(evidence: PowersetEvidence, regions: Sequence[int], size: tuple[int, int],
                 place: Place) -> Image.Image:
    """The patches the regions pool, as a mask ("L", 255 on them) of a display canvas of ``size``."""
    grid = evidence.masks[list(regions)].any(0).astype(np.uint8) * 255
    out = Image.new("L", size, 0)
    out.paste(*_grid_over(grid, evidence.box, place, Image.Resampling.NEAREST))
    return out


def subset_overlay(image: Image.Image, evidence: PowersetEvidence, node: int, side: int = DISPLAY_SIDE) -> Image.Image:
    """A tree node's best region subset, numbered as in the PowerCLIP table: the picture in its own colours with each
    region boxed (just outside, so a thin one stays seen) and its rN badge, and beside it the patches it pools, white
    on dark and outlined, under the same boxes; below, the node's cosine and each region's size."""
    alignment = evidence.alignments[node]
    canvas, place = display_image(image, side)
    pooled = np.asarray(pooled_cells(evidence, alignment.best, canvas.size, place)) > 0
    shown = marks.outline_region(grey_map(pooled.astype(np.float32)), pooled, side)
    around = -(marks.line_width(side) + 2)  # a negative inset: the outline lies outside the region's pixels
    boxes = [Mark(_box_on(canvas, evidence.regions[i].box, place, inset=around), f"r{i}", _pooled(evidence, i))
             for i in alignment.best]
    return marks.labelled(canvas, boxes, [_subset_header(evidence, alignment)], side, shown)


def described_figures(image: Image.Image | ImageState, analysis) -> dict[str, tuple[FigureInfo, Any]]:
    """Each picture of ``page_figures`` by its name, with the ``FigureInfo`` that drew it (its title and scale): drawn
    from the view the methods read (``analysis.view``), on ``image``'s own frame."""
    out: dict[str, tuple[FigureInfo, Any]] = {}
    image = view_state(image, analysis.view)
    for cls in in_page_order():  # the page's methods in its order, then the others
        if cls.name not in analysis.scores or not cls.info.figures:
            continue
        scores = analysis.scores[cls.name]
        drawn = [(f, resolve(f.draw)(scores, image)) for f in cls.info.figures]
        for k, which in enumerate("AB"[: len(scores)]):  # per caption: A's pictures, then B's
            out.update({f"{f.name} {which}": (f, pictures[k]) for f, pictures in drawn if f.per_caption})
        out.update({f.name: (f, picture) for f, picture in drawn if not f.per_caption})
    return out


def page_figures(image: Image.Image, analysis) -> dict[str, Any]:
    """An analysis's pictures as the page draws them, by name, for the methods that ran: each method's
    ``MethodInfo.figures`` (today ``sgi overlay A/B`` and ``tflocal A/B``, PIL images; ``sgi heatmap`` and
    ``powerclip tree A/B``, plotly figures; ``powerclip subset A/B``, PIL images, each tree's root node), a method's
    in its page order, each one drawn per caption named A and B. ``analysis`` is an ``explorer.engine.Analysis``."""
    return {name: picture for name, (_, picture) in described_figures(image, analysis).items()}
