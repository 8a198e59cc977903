"""PowerCLIP's pictures: a tree node's best region subset on the picture, with the patches it pools beside it, and
each caption's phrase tree (``tree``)."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go
from PIL import Image

from explorer.core.image_state import ImageState
from explorer.drawing import marks
from explorer.drawing.display import DISPLAY_SIDE, Place, box_on, display_image
from explorer.drawing.maps import grey_map, grid_over
from explorer.drawing.marks import Mark
from explorer.methods.powerclip.method import NodeAlignment, PowerCLIPEvidence
from explorer.methods.powerclip.tree import tree_figure, tree_range
from explorer.methods.results import Score


def _pooled(evidence: PowerCLIPEvidence, i: int) -> str:
    """What region ``i`` is and what of it the method pools: its cells of the encoder's patch grid."""
    region, cells = evidence.regions[i], evidence.masks[i]
    return f"{region.source} region of {int(region.mask.sum())} pixels: {int(cells.sum())} of {cells.size} patches"


def _subset_header(evidence: PowerCLIPEvidence, alignment: NodeAlignment) -> str:
    node = alignment.node
    return (f"{node.label} \u201c{node.text}\u201d: cosine {alignment.exact:.3f}, the best of all "
            f"{2 ** evidence.exact_regions - 1} subsets of regions, wherever they lie (the method's choice). "
            f"Beside the picture, white: the patches it pools.")


def pooled_cells(evidence: PowerCLIPEvidence, regions: Sequence[int], size: tuple[int, int],
                 place: Place) -> Image.Image:
    """The patches the regions pool, as a mask ("L", 255 on them) of a display canvas of ``size``."""
    grid = evidence.masks[list(regions)].any(0).astype(np.uint8) * 255
    out = Image.new("L", size, 0)
    out.paste(*grid_over(grid, evidence.box, place, Image.Resampling.NEAREST))
    return out


def subset_overlay(image: Image.Image, evidence: PowerCLIPEvidence, node: int, side: int = DISPLAY_SIDE) -> Image.Image:
    """A tree node's best region subset, numbered as in the PowerCLIP table: the picture in its own colours with each
    region boxed (just outside, so a thin one stays seen) and its rN badge, and beside it the patches it pools, white
    on dark and outlined, under the same boxes; below, the node's cosine and each region's size."""
    alignment = evidence.alignments[node]
    canvas, place = display_image(image, side)
    pooled = np.asarray(pooled_cells(evidence, alignment.best, canvas.size, place)) > 0
    shown = marks.outline_region(grey_map(pooled.astype(np.float32)), pooled, side)
    around = -(marks.line_width(side) + 2)  # a negative inset: the outline lies outside the region's pixels
    boxes = [Mark(box_on(canvas, evidence.regions[i].box, place, inset=around), f"r{i}", _pooled(evidence, i))
             for i in alignment.best]
    return marks.labelled(canvas, boxes, [_subset_header(evidence, alignment)], side, shown)


def powerclip_trees(scores: Sequence[Score], image: ImageState) -> list[go.Figure]:
    """Each caption's phrase tree, its root chosen, the trees on one colour range."""
    scale = tree_range([score.evidence for score in scores])
    return [tree_figure(score.evidence, score.caption, 0, scale) for score in scores]


def powerclip_subsets(scores: Sequence[Score], image: ImageState) -> list[Image.Image]:
    """Each caption's best region subset for its tree's root."""
    return [subset_overlay(image, score.evidence, 0) for score in scores]
