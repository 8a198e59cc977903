"""The engine from a notebook or a script: load a model by the CLI's names, analyze an image and two captions, and
get the page's table and pictures (``docs/notebook.md`` runs it end to end, offline, on the embedded model).

    from explorer.api import Explorer
    explorer = Explorer()  # the embedded world-clip; Explorer(model="ViT-B-32", pretrained="openai") with the hub
    result = explorer.analyze("scene.png", "a red square and a blue circle", "a blue square and a red circle")
    result.table()         # the page's score table, a pandas DataFrame
    result.figures()       # the page's pictures by name: PIL images and plotly figures
    result.model_input()   # the picture the model's global score reads, and what was padded or cut to make it
    explorer.overview("world", limit=5, against="world-clip-finetune")  # each item under both models, A and B
    proposal = explorer.propose("drawing.png")  # caption A naming what it sees, B its swap, the objects seen
    both = explorer.swap("drawing.png", proposal.caption_a, proposal.caption_b)
    both.image_b, both.table()  # the picture made for caption B, and the 2 x 2's text, image and group scores
    binding_readings(explorer.engine.model().encoder)  # the binding readings, each with its null and adjusted p
    explorer.interactions("scene.png", caption_a, caption_b)  # each caption's token x patch interactions
    explorer.interaction_binding(limit=10)  # which object each colour-shape span binds to, beside a no-binding model
    explorer.interaction_table()  # that reading as recorded, per split and kind, as the maps tab shows it
    heads = explorer.heads("scene.png", caption_a, caption_b)  # the embedding split into each layer's and head's part
    heads.embedding, heads.parts, heads.shares, heads.maps  # (D,), (parts, D) summing to it, (layers, heads), per patch
    explorer.head_texts()  # TextSpan: each head's texts from the world's vocabulary (and your own texts)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import pandas as pd
from PIL import Image

from explorer.core import settings
from explorer.engine import Analysis, Engine
from explorer.engine.model_pool import spec_for_name
from explorer.engine.propose import Proposal, namer, propose
from explorer.engine.swap import SwapResult, swap
from explorer.figures import viz
from explorer.images.crops import Preprocessing
from explorer.images.fit import view_state
from explorer.images.inputs import load_image, normalize_image
from explorer.images.model_input import model_input
from explorer.methods import page_methods
from explorer.models.loader import EncoderSpec, load_encoder
from explorer.readings import DRAWS, RENDERS


@dataclass(frozen=True)
class Result:
    """One analysis: the image as the engine read it, and the engine's ``Analysis`` (scores and their evidence)."""

    image: Image.Image
    analysis: Analysis
    preprocessing: Preprocessing | None = None  # the model's preprocess, as the views mirror it

    def table(self) -> pd.DataFrame:
        """The page's score table: each method, the caption it prefers, both scores and their difference."""
        return self.analysis.table()

    def figures(self) -> dict[str, Any]:
        """The pictures of the methods that ran, by name (``viz.page_figures``: each method's ``MethodInfo.figures``;
        ``viz.described_figures`` gives each one's title and scale too)."""
        return viz.page_figures(self.analysis)

    def model_input(self) -> tuple[Image.Image, str]:
        """The picture the model's global score sees (the view every method read, resized and cropped or padded by
        the model's preprocess, before normalisation) and one sentence of what was padded or cut: "the whole 640 x
        400 picture is read, padded above and below to a 640 x 640 square ..."."""
        if self.preprocessing is None:
            raise ValueError("this Result was made without the model's preprocessing: Explorer.analyze gives it")
        seen = model_input(self.image, self.preprocessing, self.analysis.view)
        return seen.picture, seen.note


class Explorer:
    """A model and its methods, loaded once by the CLI's names (none: the embedded world-clip; the page's methods)."""

    def __init__(self, model: str | None = None, pretrained: str | None = None, checkpoint: str | Path | None = None,
                 device: str | None = None, precision: str = "auto", methods: Sequence[str] | None = None) -> None:
        encoder = load_encoder(EncoderSpec(model, pretrained, checkpoint, device, precision))
        self.engine = Engine(encoder, page_methods() if methods is None else methods)

    @property
    def model(self) -> str:
        """The model's name as the page shows it."""
        return self.engine.model().label

    def analyze(self, image: str | Path | Image.Image, caption_a: str, caption_b: str) -> Result:
        """Both captions scored on the image (a path or a PIL image) by every method, as the page scores them."""
        picture = _picture(image)
        return Result(picture, self.engine.analyze(picture, caption_a, caption_b),
                      self.engine.model().encoder.preprocessing)

    def overview(self, benchmark: str = "world", limit: int = 5, data: str | Path | None = None,
                 against: str | None = None) -> pd.DataFrame:
        """Browse's overview of a benchmark's items (``limit`` per world split and kind, or per category of the files
        at ``data``): each method's verdict and margin per item; with ``against`` (a model menu entry, a shipped
        checkpoint's name or a weights file), this model's as "A: LABEL" beside that one's as "B: LABEL", so that
        ``overview.matrix(table, "B: global cosine", "A: global cosine")`` counts what B fixes and breaks."""
        from explorer.eval import overview
        from explorer.eval.benchmark_registry import load_items

        items, loaded = load_items(benchmark, data, limit), self.engine.model()
        found = overview.score_items(loaded.methods, loaded.label, items)
        if against is None:
            return overview.frame(items, found, loaded.methods)
        if against not in self.engine.pool.loaded():
            encoder = loaded.encoder
            spec = spec_for_name(against, encoder.device, precision=encoder.precision, compile=encoder.compile)
            self.engine.pool.add(against, load_encoder(spec))
        other = self.engine.model(against)
        return overview.two_models(items, (found, overview.score_items(other.methods, other.label, items)),
                                   (loaded.methods, other.methods))

    def propose(self, image: str | Path | Image.Image) -> Proposal:
        """Caption A naming the objects seen in the picture (each by a world model's top caption among the world's
        colours x shapes; the embedded one where this model is not a world model, as its notes say), B its swap."""
        encoder, substitute = namer(self.engine)
        return propose(encoder, _picture(image), substitute)

    def swap(self, image: str | Path | Image.Image, caption_a: str, caption_b: str) -> SwapResult:
        """Image B made from the picture by recolouring (or reshaping) the objects caption A names so that caption B
        describes it, and both pictures scored: ``image_b``, ``table()`` with text, image and group columns;
        ``ValueError`` saying why where B cannot be made."""
        return swap(self.engine, _picture(image), caption_a, caption_b)

    def interactions(self, image: str | Path | Image.Image, caption_a: str, caption_b: str) -> list:
        """Each caption's token x patch interactions with the picture (exCLIP's, ``docs/explanations.md``), worked out
        on the view every method reads (``analyze``'s: each ``cosine`` is its table's global cosine): ``Interactions``
        with ``caption``, ``cosine``, ``values`` (tokens, h, w) over the view's patches, ``span_map(chars)``,
        ``words_map(words)``, ``word_values``."""
        from explorer.explain.interactions import interactions

        seen = view_state(_picture(image), settings.current().view)
        return interactions(self.engine.model().encoder, seen.image, [caption_a, caption_b])

    def heads(self, image: str | Path | Image.Image, caption_a: str, caption_b: str):
        """The image embedding split into each layer's and head's direct part (Gandelsman et al., ``docs/heads.md``),
        read against both captions: ``HeadShares`` with ``embedding`` (D,) before normalisation, ``parts`` (parts, D)
        summing to it, ``shares`` (layers, heads) each head's part of cos(A) - cos(B), ``maps`` the same per patch."""
        from explorer.explain.head_shares import head_shares

        return head_shares(self.engine.model().encoder, _picture(image), (caption_a, caption_b))

    def head_texts(self, texts: Sequence[str] = ()):
        """TextSpan's texts for every head, from the world's vocabulary and ``texts``: ``HeadTexts.texts[layer][head]``
        (kept once per model and pool)."""
        from explorer.explain.textspan import head_texts

        return head_texts(self.engine.model().encoder, texts)

    def interaction_binding(self, splits: Sequence[str] = ("id", "heldout"), kinds: Sequence[str] = ("attribute",),
                            limit: int = 10) -> dict:
        """Which object each colour-shape span binds to on world swap items, beside a no-binding model, as
        ``interactions --json`` writes it: ``results[model|null][split][kind][right_object|colour_wins]``."""
        from explorer.explain.interaction_binding import binding_report

        return binding_report(self.engine.model().encoder, splits, kinds, limit)

    @staticmethod
    def interaction_table(report: dict | None = None) -> pd.DataFrame:
        """The binding reading as the maps tab shows it, a row per split and kind: each figure with its 95% interval
        and its reading against chance, beside the no-binding model's; of ``report`` (``interaction_binding``'s), or
        the recorded one (``docs/results/explanations/interaction-binding-*.json``) where none is given."""
        from explorer.explain.interaction_record import HEADERS, record_rows, recorded_rows

        return pd.DataFrame(recorded_rows() if report is None else record_rows(report), columns=HEADERS)


def _picture(image: str | Path | Image.Image) -> Image.Image:
    """A path or a PIL image, read as the page reads an upload."""
    return load_image(image) if isinstance(image, (str, Path)) else normalize_image(image).convert("RGB")


def binding_readings(encoder, draws: int = DRAWS, n_colors: int = 8, n_shapes: int = 3, renders: int = RENDERS,
                     widths: Sequence[int] = (16, 64, 256)) -> dict[str, dict]:
    """Every binding reading of ``encoder`` (any object with ``image_size``, ``embed_images(list of PIL images) ->
    Tensor[N, D]`` and ``embed_texts(list of str) -> Tensor[N, D]``; ``explorer.readings.controls`` has controls)
    by name, each entry as ``binding --json`` writes it: ``value``, ``interval`` where it has one, ``null`` (with
    ``p`` and Holm's ``p_adjusted``), ``effect``, ``reading`` and ``binding``. ``draws``: flipped scene tables behind
    each table reading's null (``docs/binding.md``). The verdicts are unchecked on other drawings of the scenes:
    ``python -m explorer binding`` checks them (the embedded model's record, ``docs/results/binding-embedded.json``)."""
    from explorer.readings.binding_null import figures

    return figures(encoder, n_colors, n_shapes, draws, renders, tuple(widths))[0]
