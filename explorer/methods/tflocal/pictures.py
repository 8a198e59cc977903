"""TFLocal's pictures: the chosen tokens' cross-attention over the patches, beside each picture in greys."""

from __future__ import annotations

from typing import Sequence

import numpy as np
from PIL import Image

from explorer.core.image_state import ImageState
from explorer.drawing import marks
from explorer.drawing.display import DISPLAY_SIDE
from explorer.drawing.maps import MAP_FLOOR, mapped, span
from explorer.methods.results import Score
from explorer.methods.tflocal.method import AttentionEvidence

ATTENTION_TITLE = "attention per patch (share of the token's total)"


def attention_overlay(
    image: Image.Image, evidence: AttentionEvidence, tokens: list[int], layer: int | None = None,
    head: int | None = None, side: int = DISPLAY_SIDE, scale: tuple[float, float] | None = None,
) -> Image.Image:
    """The image in its own colours with the part the chosen tokens attend to most outlined, and the attention
    beside it in greys (``mapped``). ``scale``: the attention at the darkest grey and at white; by default the map's
    own least and most."""
    heat = evidence.attention_map(tokens, layer, head)
    return mapped(image, heat, evidence.box, scale or span([heat]), side)


def scale_bar(canvas: Image.Image, scale: tuple[float, float], side: int) -> Image.Image:
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
    scale = span(maps)
    return [scale_bar(mapped(image, heat, ev.box, scale, side), scale, side) for heat, (ev, _) in zip(maps, shown)]


def tflocal_attention(scores: Sequence[Score], image: ImageState) -> list[Image.Image]:
    """Each caption's attention over the patches, every token as the page starts, all on one scale."""
    return attention_pictures(image, [(score.evidence, []) for score in scores], None, None)
