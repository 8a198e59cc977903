"""The scoring methods' own pictures, as their ``MethodInfo.figures`` name them ("explorer.figures.method_figures:
sgi_overlays"): each takes the method's scores of an analysis (one ``Score`` per caption, with its evidence) and the
image, and gives one picture, or one per caption for a figure drawn per caption. ``viz.page_figures`` draws them for
the page's report and the notebook."""

from __future__ import annotations

from typing import Sequence

import plotly.graph_objects as go
from PIL import Image

from explorer.figures.viz import attention_pictures, sgi_heatmap, sgi_overlay, subset_overlay
from explorer.figures.viz_tree import tree_figure, tree_range
from explorer.methods import Score


def sgi_overlays(scores: Sequence[Score], image: Image.Image) -> list[Image.Image]:
    """Each caption's segments on their best regions (``viz.sgi_overlay``)."""
    return [sgi_overlay(image, score.evidence) for score in scores]


def sgi_heatmaps(scores: Sequence[Score], image: Image.Image) -> go.Figure:
    """The regions x segments cosines of every caption, a block each (``viz.sgi_heatmap``)."""
    return sgi_heatmap({f"{k}: {s.caption}": s.evidence for k, s in zip("AB", scores)})


def tflocal_attention(scores: Sequence[Score], image: Image.Image) -> list[Image.Image]:
    """Each caption's attention over the patches, every token as the page starts, all on one scale."""
    return attention_pictures(image, [(score.evidence, []) for score in scores], None, None)


def powerclip_trees(scores: Sequence[Score], image: Image.Image) -> list[go.Figure]:
    """Each caption's phrase tree, its root chosen, the trees on one colour range."""
    scale = tree_range([score.evidence for score in scores])
    return [tree_figure(score.evidence, score.caption, 0, scale) for score in scores]


def powerclip_subsets(scores: Sequence[Score], image: Image.Image) -> list[Image.Image]:
    """Each caption's best region subset for its tree's root."""
    return [subset_overlay(image, score.evidence, 0) for score in scores]
