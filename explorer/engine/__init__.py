"""The explorer's engine: the shared pool of loaded models, and one analysis of an image and two captions."""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass, field
from typing import Sequence

import pandas as pd
from PIL import Image

from explorer import world
from explorer.core import cancel, image_state, settings
from explorer.core.image_state import ImageState
from explorer.engine import cautions
from explorer.engine.cautions import Caution
from explorer.engine.model_pool import LoadedModel, ModelPool, choice_for, model_choices
from explorer.images.fit import View
from explorer.images.inputs import clean_caption_pair
from explorer.images.model_input import seen_box
from explorer.methods import REGISTRY, Score, ScoringMethod, canonical, get_method, page_methods, proposals
from explorer.methods.picture import prepare
from explorer.models import checkpoints
from explorer.models.encoders import DualEncoder
from explorer.models.model_configs import EMBEDDED_MODEL

log = logging.getLogger(__name__)

UNTRAINED_MARK = " (untrained)"
TABLE_COLUMNS = ["method", "prefers", "A", "B", "A - B"]  # the verdict beside the method: seen on a phone too
WORLD_LIKE = 0.5  # a world scene's frame is all background grey (share 1.0), a photo's or a drawing's on white ~0
DRAWING_LIKE = 0.8  # a drawing's frame is plain (share near 1.0, world.flat_frame), a photo's <= 0.66
OFF_WORLD = ("This image is far from the world the world-clip models were trained on: flat shapes on a plain grey "
             "(128, 128, 128) background, and its border is not that grey. Their scores here may mean little (the "
             "embedded model names objects drawn on white or dark backgrounds poorly); a hub model such as ViT-B-32 "
             "suits photos.")
OFF_DRAWINGS = ("This image does not look like the pictures the world-clip models were trained on: flat shapes "
                "drawn on a plain background of any colour (line drawings, smooth edges and JPEG included), and its "
                "border is not plain. Their scores here may mean little; a hub model such as ViT-B-32 suits photos.")


def off_world_notice(image, varied: bool) -> str | None:
    """The notice an image far from the embedded model's training pictures gets: with ``varied`` (trained on varied
    looks, ``world.looks``) any plain border passes, else only the world's grey one."""
    if varied:
        return OFF_DRAWINGS if world.flat_frame(image) < DRAWING_LIKE else None
    return OFF_WORLD if world.background_share(image) < WORLD_LIKE else None


@functools.cache
def embedded_saw_varied_looks() -> bool:
    """Whether the shipped embedded model's training record names varied looks (``--varied-renders``)."""
    return bool(checkpoints.EMBEDDED.config.get("varied_renders"))


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: gradio's State hashes what it holds
class Analysis:
    captions: tuple[str, str]
    scores: dict[str, tuple[Score, Score]]
    model: str = ""  # the label of the model that produced the scores
    device: str = ""
    untrained: tuple[str, ...] = ()  # methods that ran on random weights: their preference means nothing
    notices: tuple[str, ...] = ()
    model_input: str = ""  # what the view and the preprocess cut or padded before the model saw the image
    model_box: tuple[int, int, int, int] | None = None  # the box of the image the model's input shows (x0, y0, x1, y1;
    # past its edges where padded)
    model_fill: tuple[int, int, int] = (0, 0, 0)  # the padding's colour where the box reaches past the image
    state: ImageState | None = None  # the state of the view every method read (``explorer.images.fit.view_state``):
    # the picture read, its frame, the work kept of it; the figures, the main tab's overlays and the maps are drawn
    # from it (held while the analysis is, so none looks it up again; None: an analysis made by hand)
    cautions: tuple[Caution, ...] = ()  # each method's weak evidence on a drawing, a sentence to show beside its
    # verdict (``explorer.engine.cautions``); one about the model's input (method "") is among the notices too

    @property
    def view(self) -> str:
        """The name of the view every method read (``explorer.images.fit``): "whole" or "raw"."""
        return self.state.view if self.state is not None else "whole"

    def cautions_of(self, method: str) -> tuple[str, ...]:
        """The sentences to show beside ``method``'s verdict: its own cautions, A's before B's, each said once
        (a caution about the picture reads the same for both captions)."""
        return tuple(dict.fromkeys(c.text for c in sorted(self.cautions, key=lambda c: c.caption)
                                   if c.method == method))

    def rows(self) -> list[dict[str, object]]:
        """One row per method (its name and label): both scores, their delta, the caption it prefers ("A",
        "B", "tie"; None for an untrained method, whose preference means nothing) and its cautions (sentences)."""
        out = []
        for name, (a, b) in self.scores.items():
            delta = a.value - b.value
            prefers = None if name in self.untrained else "A" if delta > 0 else "B" if delta < 0 else "tie"
            out.append({"method": name, "label": REGISTRY[name].label, "a": a.value, "b": b.value, "delta": delta,
                        "prefers": prefers, "cautions": self.cautions_of(name)})
        return out

    def table(self, methods: Sequence[str] | None = None) -> pd.DataFrame:
        """The page's score table (``TABLE_COLUMNS``) of ``methods`` (all when None): scores to 4 places, an
        untrained method marked, its preference n/a."""
        rows = [[r["label"] + UNTRAINED_MARK if r["prefers"] is None else r["label"], r["prefers"] or "n/a",
                 round(r["a"], 4), round(r["b"], 4), round(r["delta"], 4)]
                for r in self.rows() if methods is None or r["method"] in methods]
        return pd.DataFrame(rows, columns=TABLE_COLUMNS)


@dataclass
class Engine:
    """The start-up model (pinned) and any other a session picks, shared through one bounded pool."""

    encoder: DualEncoder
    method_names: Sequence[str] = field(default_factory=page_methods)  # the registry's page methods
    method_options: dict[str, dict] = field(default_factory=dict)
    budget_mb: float | None = None  # None: the model_budget_mb setting
    max_models: int | None = None  # None: the max_models setting

    def __post_init__(self) -> None:
        given = settings.current()
        self.budget_mb = given.model_budget_mb if self.budget_mb is None else self.budget_mb
        self.max_models = given.max_models if self.max_models is None else self.max_models
        self.pool = ModelPool(self._make_methods, self.encoder.device, self.budget_mb, self.max_models,
                              self.encoder.precision, self.encoder.compile)
        self.default_choice = choice_for(self.encoder)
        self.pool.add(self.default_choice, self.encoder, pinned=True)

    def _make_methods(self, encoder: DualEncoder) -> dict[str, ScoringMethod]:
        return {canonical(n): get_method(n, encoder, **self.method_options.get(n, {})) for n in self.method_names}

    def choices(self) -> list[str]:
        """The model menu: the start-up model among the embedded, project and open_clip pretrained ones."""
        return model_choices([self.default_choice])

    def model(self, choice: str | None = None) -> LoadedModel:
        """The model a session picked (the start-up one when None), loaded into the pool when it is not there."""
        return self.pool.get(choice or self.default_choice)

    @property
    def methods(self) -> dict[str, ScoringMethod]:
        """The start-up model's methods."""
        return self.model().methods

    @property
    def device(self) -> str:
        return self.encoder.device

    def analyze(self, image: Image.Image | ImageState, caption_a: str, caption_b: str, progress=None,
                choice: str | None = None, view: View | None = None) -> Analysis:
        """Both captions scored by every method of the model on the state of the image's view (``view``: the
        ``view`` setting's when None; a caption edit finds the state)."""
        a, b = clean_caption_pair(caption_a, caption_b)
        loaded = self.model(choice)
        view = view or settings.current().view  # type: ignore[assignment]
        source = image_state.of(image)
        state, picture = prepare(source, view)  # the one place the picture is prepared
        notices = []
        scores = {}
        with proposals.sharing_cores():
            # the image's region proposals start first, beside what follows
            proposals.start_ahead([state], [p for m in loaded.methods.values() for p in m.proposers()],
                                  loaded.encoder.device)
            loaded.encoder.encode_image(state)
            for which, feats in zip("AB", loaded.encoder.encode_texts([a, b])):
                if feats.truncated:
                    notices.append(f"Caption {which} is longer than the model's {loaded.encoder.context_length} "
                                   f"tokens: only its start was read.")
            for i, (name, method) in enumerate(loaded.methods.items()):
                cancel.check()
                if progress is not None:
                    progress((i, len(loaded.methods)), desc=f"{method.label}...")
                scores[name] = tuple(method.score(state, [a, b]))
        if loaded.encoder.name == EMBEDDED_MODEL:
            notice = off_world_notice(source.image, embedded_saw_varied_looks())
            notices += [notice] if notice else []
        untrained = tuple(name for name, method in loaded.methods.items() if not method.trained)
        fit = picture.fit
        box, note = seen_box(fit, loaded.encoder.preprocessing)
        weak = [*cautions.input_caution(picture, box), *cautions.judge(picture, scores, untrained)]
        notices += [c.text for c in weak if not c.method]
        return Analysis((a, b), scores, loaded.label, loaded.device, untrained, tuple(notices), note, box, fit.fill,
                        state, tuple(weak))
