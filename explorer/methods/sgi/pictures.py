"""SGI's pictures: each segment's best region on the picture, and the regions x segments cosines as a heat map."""

from __future__ import annotations

import html
import textwrap
from typing import Sequence

import numpy as np
import plotly.graph_objects as go
from PIL import Image

from explorer.core import image_state
from explorer.core.image_state import ImageState
from explorer.drawing import marks
from explorer.drawing.display import DISPLAY_SIDE, Place, box_on, display_image, region_name, stacked_rows, upload_place
from explorer.drawing.marks import INK, Mark
from explorer.methods.results import Score
from explorer.methods.sgi.method import SGIEvidence


def sgi_overlay(image: Image.Image | ImageState, evidence: SGIEvidence, side: int = DISPLAY_SIDE) -> Image.Image:
    """Each segment's best region boxed and numbered; below the picture, each number's segment, region and cosine."""
    canvas, place = display_image(image, side)
    step = marks.line_width(side) + 2  # nested boxes (two segments on one region) stay apart
    shown = [Mark(box_on(canvas, evidence.regions[m.crop].box, place, inset=i * step), str(i + 1),
                  f"\u201c{m.segment.text}\u201d: region r{m.crop}, cosine {m.similarity:.3f}")
             for i, m in enumerate(evidence.matches)]
    return marks.labelled(canvas, shown, [], side)


SGI_ROW_GAP = 0.15  # the space between the captions' blocks of the SGI heat map, a fraction of the figure's height
SGI_COLUMNS = 14  # regions shown per caption: each segment's best, then the best-scoring others
SGI_X_TITLE = "segments, numbered<br>as on the pictures"
SGI_Y_TITLE = "regions, best first (boxed: each segment's best it may match)"
SGI_GREY = "rgb(205,205,205)"  # a cell the segment may not match: its cosine written on grey, never boxed
SGI_APART = ("Grey cells: regions this segment may not match. A <b>piece</b> is a crop that cuts through a drawn "
             "shape, showing only part of it (a star's two points can look like a triangle), so an object's name is "
             "never matched to a piece, only to a crop that holds the whole shape or to its <b>object</b> window. "
             "An object window holds one shape alone: a caption that says where things stand reads the crops "
             "instead.")
SGI_APART_CHARS = 46  # the grey cells' legend wrapped to lines this long, under the last block: a phone's width
SGI_APART_PX = 230  # the legend's room under the figure: below the segments' axis title, nine lines of it
SGI_APART_SHIFT = 85  # the legend's top, this far under the plot: clear of the segments' names and axis title
SGI_SEGMENT_CHARS = 8  # a segment's name wrapped to lines this long: three segments fit across a phone
SGI_TITLE_CHARS = 36  # a caption's title wrapped to lines this long: a phone's width holds one
SGI_ROW_PX = 26  # a region's row: room for its cosine, written in the cell, and its name's two lines


def sgi_columns(evidence: SGIEvidence, k: int = SGI_COLUMNS) -> list[int]:
    """The regions a caption's row shows: each segment's best, then the others with the highest cosine, up to ``k``,
    ordered by their best cosine over the segments."""
    best = list(dict.fromkeys(m.crop for m in evidence.matches))
    top = evidence.matrix.max(0)
    others = [i for i in np.argsort(-top, kind="stable").tolist() if i not in best]
    return sorted(best + others[: max(0, k - len(best))], key=lambda i: -top[i])


def segment_label(k: int, text: str) -> str:
    """Segment ``k``'s column name: its number as on the overlays and its words, wrapped short, escaped."""
    return "<br>".join(html.escape(line, quote=False) for line in textwrap.wrap(f"{k + 1}. {text}", SGI_SEGMENT_CHARS))


def sgi_heatmap(evidence: dict[str, SGIEvidence], place: Place = Place(1.0)) -> go.Figure:
    """Regions x segments cosine heat maps, a block per caption, one above the other: a row per ``sgi_columns``
    region (best first, down the block), a column per segment (numbered as on the overlays), each segment's choice,
    the best of the cells it may match (``SGIEvidence.allowed``), boxed; the cells it may not match shown apart, in
    grey with their cosine, and said in a legend under the figure. Segments across and regions down, so that a
    phone's width holds a caption's few segments with each cosine readable in its cell, where fourteen regions across
    would not. Each block's title ends at its heat map's right edge and wraps, so that a phone shows it whole; regions
    are named in the uploaded picture's own pixels by ``place`` (``region_name``).

    Built as one figure on ``stacked_rows``, not with ``make_subplots`` and a trace at a time: plotly validates the
    whole layout again at each of those steps (several times slower for two captions: docs/PERFORMANCE.md, "Design
    decisions"), and the page redraws it on every caption edit."""
    zmin = min(float(ev.matrix.min()) for ev in evidence.values())
    zmax = max(float(ev.matrix.max()) for ev in evidence.values())
    data: list[go.Heatmap] = []
    block = SGI_ROW_PX * SGI_COLUMNS + 90  # the rows, the segments' names under them and the next block's title
    apart = any(not ev.allowed.all() for ev in evidence.values())
    layout: dict = dict(height=block * len(evidence) + 110 + apart * SGI_APART_PX,
                        margin=dict(l=10, r=10, t=64, b=10 + apart * SGI_APART_PX), annotations=[], shapes=[])
    rows = stacked_rows(len(evidence), SGI_ROW_GAP)
    for row, ((title, ev), (bottom, top)) in enumerate(zip(evidence.items(), rows)):
        axis = str(row + 1) if row else ""  # plotly's axis names: x, y, then x2, y2...
        x, y = f"x{axis}", f"y{axis}"
        columns = sgi_columns(ev)
        labels = [segment_label(k, m.segment.text) for k, m in enumerate(ev.matches)]
        names = [region_name(i, ev.regions[i], place, "<br>") for i in columns]
        z, ok = ev.matrix[:, columns].T, ev.allowed[:, columns].T
        data.append(go.Heatmap(
            z=np.where(ok, z, np.nan), x=labels, y=names,
            zmin=zmin, zmax=zmax, colorscale="Viridis", showscale=row == 0, texttemplate="%{z:.2f}",
            textfont=dict(size=12), hoverongaps=False,
            colorbar=dict(title=dict(text="cosine", side="top"), thickness=10, xpad=4, y=(bottom + top) / 2,
                          yanchor="middle", len=top - bottom),  # beside the first block only, clear of the titles
            hovertemplate="%{x}<br>%{y}<br>cosine %{z:.3f}<extra></extra>", xaxis=x, yaxis=y))
        if not ok.all():  # the cells the segment may not match, apart: grey, their cosine written, never boxed
            data.append(go.Heatmap(
                z=np.where(ok, np.nan, z), x=labels, y=names, colorscale=[[0, SGI_GREY], [1, SGI_GREY]],
                showscale=False, texttemplate="%{z:.2f}", textfont=dict(size=12, color="rgb(90,90,90)"),
                hoverongaps=False, name="may not match",
                hovertemplate="%{x}<br>%{y}<br>cosine %{z:.3f}: this segment may not match it<extra></extra>",
                xaxis=x, yaxis=y))
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
    if apart:  # what the grey cells are, in a student's words, under the last block, ending at its right edge
        layout["annotations"].append(dict(
            text="<br>".join(textwrap.wrap(SGI_APART, SGI_APART_CHARS)), x=1.0, xref="paper", xanchor="right",
            align="left", y=0, yref="paper", yshift=-SGI_APART_SHIFT, yanchor="top", showarrow=False,
            font=dict(size=11)))
    return go.Figure(data=data, layout=layout)


def sgi_overlays(scores: Sequence[Score], image: Image.Image) -> list[Image.Image]:
    """Each caption's segments on their best regions (``sgi_overlay``)."""
    return [sgi_overlay(image, score.evidence) for score in scores]


def sgi_heatmaps(scores: Sequence[Score], image: Image.Image | ImageState) -> go.Figure:
    """The regions x segments cosines of every caption, a block each (``sgi_heatmap``), the regions placed on the
    picture the view was cut from."""
    return sgi_heatmap({f"{k}: {s.caption}": s.evidence for k, s in zip("AB", scores)},
                       upload_place(image_state.of(image)))
