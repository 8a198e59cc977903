"""The engine from a notebook or a script: load a model by the CLI's names, analyse an image and two captions, and
get the page's table and pictures (``docs/notebook.md`` runs it end to end, offline, on the embedded model).

    from explorer.api import Explorer
    explorer = Explorer()  # the embedded world-clip; Explorer(model="ViT-B-32", pretrained="openai") with the hub
    result = explorer.analyse("scene.png", "a red square and a blue circle", "a blue square and a red circle")
    result.table()         # the page's score table, a pandas DataFrame
    result.figures()       # the page's pictures by name: PIL images and plotly figures
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import pandas as pd
from PIL import Image

from explorer import viz
from explorer.engine import DEFAULT_METHODS, Analysis, Engine
from explorer.inputs import load_image, normalize_image
from explorer.loader import EncoderSpec, load_encoder


@dataclass(frozen=True)
class Result:
    """One analysis: the image as the engine read it, and the engine's ``Analysis`` (scores and their evidence)."""

    image: Image.Image
    analysis: Analysis

    def table(self) -> pd.DataFrame:
        """The page's score table: each method, the caption it prefers, both scores and their difference."""
        return self.analysis.table()

    def figures(self) -> dict[str, Any]:
        """The page's pictures of the methods that ran, by name: ``sgi overlay A/B`` and ``tflocal A/B`` (PIL
        images), ``sgi heatmap`` and ``powerclip tree A/B`` (plotly figures), ``powerclip subset A/B`` (PIL images,
        each tree's root node)."""
        scores, out = self.analysis.scores, {}
        if "sgi" in scores:
            for which, score in zip("AB", scores["sgi"]):
                out[f"sgi overlay {which}"] = viz.sgi_overlay(self.image, score.evidence)
            out["sgi heatmap"] = viz.sgi_heatmap({f"{k}: {s.caption}": s.evidence for k, s in zip("AB", scores["sgi"])})
        if "tflocal" in scores:
            shown = [(score.evidence, []) for score in scores["tflocal"]]  # every token, as the page starts
            for which, picture in zip("AB", viz.attention_pictures(self.image, shown, None, None)):
                out[f"tflocal {which}"] = picture
        if "powerset" in scores:
            scale = viz.tree_range([score.evidence for score in scores["powerset"]])
            for which, score in zip("AB", scores["powerset"]):
                out[f"powerclip tree {which}"] = viz.tree_figure(score.evidence, score.caption, 0, scale)
                out[f"powerclip subset {which}"] = viz.subset_overlay(self.image, score.evidence, 0)
        return out


class Explorer:
    """A model and its methods, loaded once by the CLI's names (none: the embedded world-clip)."""

    def __init__(self, model: str | None = None, pretrained: str | None = None, checkpoint: str | Path | None = None,
                 device: str | None = None, precision: str = "auto", methods: Sequence[str] = DEFAULT_METHODS) -> None:
        self.engine = Engine(load_encoder(EncoderSpec(model, pretrained, checkpoint, device, precision)), methods)

    @property
    def model(self) -> str:
        """The model's name as the page shows it."""
        return self.engine.model().label

    def analyse(self, image: str | Path | Image.Image, caption_a: str, caption_b: str) -> Result:
        """Both captions scored on the image (a path or a PIL image) by every method, as the page scores them."""
        picture = load_image(image) if isinstance(image, (str, Path)) else normalize_image(image).convert("RGB")
        return Result(picture, self.engine.analyze(picture, caption_a, caption_b))
