"""The one interface every scoring method shares, and the registry in which each method describes itself."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Mapping, Sequence, TypeVar

import numpy as np
from PIL import Image

from explorer.core import cancel, image_state
from explorer.core.image_state import ImageState
from explorer.drawing.display import Place, upload_place
from explorer.methods.proposals import Named
from explorer.methods.results import Caution, Maps, Score
from explorer.methods.tabs import MethodTab
from explorer.models.encoders import DualEncoder
from explorer.world.tour import Step, steps


@dataclass(frozen=True)
class SegmentMap:
    """Where a method looks for each caption segment, read off its evidence: "Where the model looks" offers it as a
    map source beside the explainers' (``explorer.explain.looks``), and the pointing game judges it."""

    read: Callable[[DualEncoder, Image.Image, str, Any], Maps]  # (encoder, image, caption, evidence) -> each
    # segment's character span -> its Pointer
    label: str  # the source menu's entry and the notes' name for it ("SGI's chosen crop")
    scale_title: str  # the title of the maps' colour bar
    reading: str  # how to read the maps, under them
    region: bool = False  # each map is a region (1 inside, 0 outside): its bar reads "outside" to "inside"
    untrained: str = ""  # why there is no map where the evidence's ``trained`` is False (untrained weights)
    recorded: Mapping[str, Any] = field(default_factory=dict)  # how it reads the map, recorded beside the pointing
    # game's figures ({"layer": 0})


@dataclass(frozen=True)
class FigureInfo:
    """One of a method's pictures of an analysis: the downloaded report and the notebook's ``figures()`` draw it
    (``explorer.figures.viz.page_figures``)."""

    name: str  # its name among the analysis's pictures ("sgi heatmap"); one per caption gets " A", " B" after it
    title: str  # what it shows
    scale: str  # what its colours or numbers run over
    draw: Callable[[Sequence[Score], ImageState], Any]  # (the method's scores, one per caption; the view's state) ->
    # a PIL image or a plotly figure, or a list of them, one per caption, where ``per_caption``
    per_caption: bool = False


@dataclass(frozen=True)
class MainPictures:
    """The pictures the main tab shows under its score table: one per caption, and one of both captions."""

    overlay: Callable[[ImageState, Any], Image.Image]  # (the view's state, one caption's evidence) -> its picture
    joint: Callable[[dict[str, Any], Place], Any]  # ({"A: caption": evidence, ...}, where the view's points lie in
    # the upload's own pixels, ``display.upload_place``) -> a plotly figure of both
    overlay_label: str  # each caption's picture's label, "{}" for the caption's letter
    joint_label: str


@dataclass(frozen=True)
class MethodInfo:
    """A method as it describes itself: the page, its legend, Browse, eval and the tests read it from the registry."""

    name: str  # eval's ``--methods`` name and the key of its scores
    label: str  # the name people read: the score table, the legend, Browse's verdicts and overview
    legend: str  # what its score is, in the page's legend
    scale: str  # the range its scores take, in the legend
    caveat: str = ""  # what else the legend says of it, if anything
    page_order: int | None = None  # its place among the page's methods (table rows, legend, tabs); None: not run there
    tab: MethodTab | None = None  # its tab on the page, if it has one, declared (its folder's ``tab.py``)
    segment_map: SegmentMap | None = None  # its map for a caption segment, if its evidence has one
    figures: tuple[FigureInfo, ...] = ()  # its pictures of an analysis: those per caption (A's, then B's), then the
    # others, each in this order
    main: MainPictures | None = None  # its pictures under the main tab's table (the first method that has them)
    cautions: Callable[[str, int, Any, np.ndarray], list[Caution]] | None = None  # (its name, the caption 0 or 1, its
    # evidence, the drawing's objects' (H, W) mask) -> where its evidence is weak or off the objects
    tour: Step | None = None  # its step of the guided tour, after the steps of the methods before it
    intro: str = ""  # what it is, in a few words of the page's introduction
    aliases: tuple[str, ...] = ()  # former names, still read where a name is typed (``canonical``)
    settings: Mapping[str, str] = field(default_factory=dict)  # a setting's name -> the option of its own it fills
    # where the setting is given (``explorer.core.settings``: ``{"sam_checkpoint": "sam_checkpoint"}``)


class ScoringMethod(ABC):
    """Scores captions against an image. Its image-side work and its scores are kept in the image's state
    (``explorer.core.image_state``) under the method's ``key``, so a caption edit scores the edited caption alone."""

    info: ClassVar[MethodInfo]  # set by ``register``, with ``name`` and ``label`` from it
    name: ClassVar[str]
    label: ClassVar[str]
    trained: bool = True  # False where the method runs on seeded random weights (no trained head for this encoder)

    def __init__(self, encoder: DualEncoder) -> None:
        self.encoder = encoder
        self.key = image_state.owner_key(self.name)
        if encoder is not None and type(self).companion_texts is not ScoringMethod.companion_texts:
            encoder.text_hooks[self.name] = self.companion_texts  # encoded in one batch with each new caption

    def companion_texts(self, captions: Sequence[str]) -> list[str]:
        """The texts this method will encode of new captions (SGI's segment prompts, PowerCLIP's tree nodes)."""
        return []

    def proposers(self) -> Sequence[Named]:
        """The region proposers this method reads (``explorer.methods.proposals``): an analysis starts them ahead."""
        return ()

    def prepare(self, states: Sequence[ImageState]) -> None:
        """Compute the images' work ahead of scoring them, in batches (the default: global and patch features)."""
        self.encoder.fill(states)

    def score(self, image: Image.Image | ImageState, captions: Sequence[str]) -> list[Score]:
        """One score per caption, in order: a caption scored on this image before is read from its state, the new
        ones are scored together (``score_new``). A page's request given up stops here, before the next image
        (``explorer.core.cancel``: every scoring loop, the page's, Browse's and eval's, comes through)."""
        cancel.check()
        state = image_state.of(image)
        return state.by_caption(self.key, captions, lambda new: self.score_new(state, new))

    @abstractmethod
    def score_new(self, state: ImageState, captions: Sequence[str]) -> list[Score]:
        """One score per caption, in order, each computed (no score kept before is read)."""


REGISTRY: dict[str, type[ScoringMethod]] = {}
Method = TypeVar("Method", bound=type[ScoringMethod])


def register(info: MethodInfo) -> Callable[[Method], Method]:
    """A class decorator: the method described by ``info`` (its ``name`` and ``label`` too), named in the registry."""
    def add(cls: Method) -> Method:
        known = REGISTRY.get(info.name)
        if known is not None and known is not cls:
            raise ValueError(f"two methods named {info.name!r}: {known.__qualname__} and {cls.__qualname__}")
        cls.info, cls.name, cls.label = info, info.name, info.label
        REGISTRY[info.name] = cls
        return cls
    return add


def page_methods() -> tuple[str, ...]:
    """The methods the page runs, in their page order."""
    shown = [cls.info for cls in REGISTRY.values() if cls.info.page_order is not None]
    return tuple(info.name for info in sorted(shown, key=lambda info: info.page_order))


def in_page_order() -> list[type[ScoringMethod]]:
    """Every registered method, the page's in their page order first, then the others as registered."""
    return sorted(REGISTRY.values(), key=lambda cls: (cls.info.page_order is None, cls.info.page_order or 0))


def canonical(name: str) -> str:
    """A method's name as the registry has it, for ``name`` or a former name of it (``MethodInfo.aliases``); any
    other name as it is."""
    return next((cls.name for cls in REGISTRY.values() if name in cls.info.aliases), name)


def get_method(name: str, encoder: DualEncoder, **options) -> ScoringMethod:
    """Method ``name`` (or a former name of it) on ``encoder``, with ``options``."""
    if canonical(name) not in REGISTRY:
        raise ValueError(f"unknown method {name!r}; known: {', '.join(REGISTRY)}")
    return REGISTRY[canonical(name)](encoder, **options)


def tour_steps() -> tuple[Step, ...]:
    """The guided tour: each page method's step (``MethodInfo.tour``) in page order, among the tour's own."""
    return steps([cls.info.tour for cls in in_page_order() if cls.info.tour and cls.info.page_order is not None])


def main_method(names: Sequence[str]) -> str | None:
    """The first of ``names``, in page order, whose pictures the main tab shows (``MethodInfo.main``); None: none."""
    return next((cls.name for cls in in_page_order() if cls.name in names and cls.info.main), None)


def main_pictures(state: ImageState, analysis: Any) -> dict[str, Any]:
    """The main tab's pictures of ``analysis`` (the engine's ``Analysis``) on the view's ``state``: "overlay A",
    "overlay B" and "joint", by ``main_method``; none where no method that ran has them (the regions named in the
    upload's own pixels)."""
    name = main_method(list(analysis.scores))
    if name is None:
        return {}
    drawn, scores = REGISTRY[name].info.main, analysis.scores[name]
    out = {f"overlay {k}": drawn.overlay(state, s.evidence) for k, s in zip("AB", scores)}
    joint = {f"{k}: {s.caption}": s.evidence for k, s in zip("AB", scores)}
    return out | {"joint": drawn.joint(joint, upload_place(state))}


def options_from(given: Any) -> dict[str, dict[str, Any]]:
    """Each method's options filled from the settings ``given`` (``MethodInfo.settings``), where any is set."""
    out = {cls.name: {option: getattr(given, name) for name, option in cls.info.settings.items()
                      if getattr(given, name) is not None} for cls in REGISTRY.values()}
    return {name: options for name, options in out.items() if options}
