"""Results -> pictures: the page's pictures of an analysis by name, read from each method's ``MethodInfo.figures``,
and the binding tab's and the coverage sweep's plots. No gradio here. Each method draws its own pictures (its
folder's ``pictures``) with the drawing kit (``explorer.drawing``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative

from explorer.core.image_state import ImageState
from explorer.drawing.marks import INK
from explorer.methods import FigureInfo, in_page_order
from explorer.world.palette import FILLS

PALETTE = qualitative.D3  # the coverage sweep's object spaces: categories, not world colours


SHAPE_SYMBOLS = {"circle": "circle", "square": "square", "triangle": "triangle-up", "star": "star",
                 "hexagon": "hexagon", "cross": "cross", "diamond": "diamond"}  # a world shape -> plotly's marker


def object_marker(label: str) -> tuple[str, str]:
    """A world object's name ('red circle') -> its paint and marker symbol, so that the point reads as the object."""
    color, _, shape = label.rpartition(" ")
    return "rgb({}, {}, {})".format(*FILLS.get(color, (128, 128, 128))), SHAPE_SYMBOLS.get(shape, "circle")


def main_plane(*clouds: np.ndarray) -> tuple[list[np.ndarray], float]:
    """The point clouds, each (n, D), projected on the two main axes of all of them, each (n, 2), and the share of
    their spread kept."""
    points = np.concatenate(clouds)
    centre = points.mean(0)
    _, spread, axes = np.linalg.svd(points - centre, full_matrices=False)
    kept = float((spread[:2] ** 2).sum() / max((spread**2).sum(), 1e-12))
    return [(c - centre) @ axes[:2].T for c in clouds], kept


def binding_mds_figure(observed: np.ndarray, reconstructed: np.ndarray, labels: list[str]) -> go.Figure:
    """Observed object embeddings (filled) beside their colour + shape reconstructions (hollow), both (objects, 3) in
    the order of ``labels``, joined by lines: the 3-D MDS seen along its two main axes, each point drawn as its object
    (paint and shape), named on hover."""
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


def described_figures(analysis: Any) -> dict[str, tuple[FigureInfo, Any]]:
    """Each picture of ``page_figures`` by its name, with the ``FigureInfo`` that drew it (its title and scale): drawn
    from the state of the view the methods read (``analysis.state``), on the picture's own frame."""
    out: dict[str, tuple[FigureInfo, Any]] = {}
    image: ImageState = analysis.state
    if image is None:
        raise ValueError("this analysis holds no image state to draw from: Engine.analyze gives one")
    for cls in in_page_order():  # the page's methods in its order, then the others
        if cls.name not in analysis.scores or not cls.info.figures:
            continue
        scores = analysis.scores[cls.name]
        drawn = [(f, f.draw(scores, image)) for f in cls.info.figures]
        for k, which in enumerate("AB"[: len(scores)]):  # per caption: A's pictures, then B's
            out.update({f"{f.name} {which}": (f, pictures[k]) for f, pictures in drawn if f.per_caption})
        out.update({f.name: (f, picture) for f, picture in drawn if not f.per_caption})
    return out


def page_figures(analysis: Any) -> dict[str, Any]:
    """An analysis's pictures as the page draws them, by name, for the methods that ran: each method's
    ``MethodInfo.figures`` (PIL images and plotly figures), a method's in its page order, each one drawn per caption
    named A and B. ``analysis`` is an ``explorer.engine.Analysis``."""
    return {name: picture for name, (_, picture) in described_figures(analysis).items()}
