"""The one interface every scoring method shares, and the registry in which each method describes itself."""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Sequence, TypeVar

import numpy as np
from PIL import Image

from explorer.core import cancel, image_state
from explorer.models.encoders import DualEncoder
from explorer.core.image_state import ImageState
from explorer.methods.proposals import Named


Hook = Callable[..., Any] | str  # a function, or its "module:function" path, imported when first called


def resolve(hook: Hook) -> Callable[..., Any]:
    """A hook as a function: a "module:function" path is imported then, so a method can name a function of a layer
    above its own (a picture of ``explorer/figures/``) without importing it."""
    if callable(hook):
        return hook
    module, _, function = hook.partition(":")
    return getattr(importlib.import_module(module), function)


@dataclass(frozen=True)
class Pointer:
    """A map over an (H, W) image, >= 0, and the pixel (x, y) it points at."""

    map: np.ndarray
    point: tuple[int, int]


def peak(heat: np.ndarray) -> Pointer:
    """A map pointing at its maximum."""
    y, x = np.unravel_index(int(np.argmax(heat)), heat.shape)
    return Pointer(heat, (int(x), int(y)))


def region(mask: np.ndarray) -> Pointer:
    """A uniform map over a region (a crop or a subset), pointing at its centre of mass."""
    ys, xs = np.nonzero(mask)
    return Pointer(mask.astype(np.float32), (int(round(xs.mean())), int(round(ys.mean()))))


@dataclass(frozen=True)
class SegmentMap:
    """Where a method looks for each caption segment, read off its evidence: "Where the model looks" offers it as a
    map source beside the explainers' (``explorer.explain.view``), and the pointing game judges it."""

    read: Hook  # (encoder, image, caption, evidence) -> {a segment's character span: its Pointer}
    label: str  # the source menu's entry and the notes' name for it ("SGI's chosen crop")
    scale_title: str  # the title of the maps' colour bar
    reading: str  # how to read the maps, under them
    region: bool = False  # each map is a region (1 inside, 0 outside): its bar reads "outside" to "inside"
    untrained: str = ""  # why there is no map where the evidence's ``trained`` is False (untrained weights)


@dataclass(frozen=True)
class FigureInfo:
    """One of a method's pictures of an analysis: the downloaded report and the notebook's ``figures()`` draw it
    (``explorer.figures.viz.page_figures``)."""

    name: str  # its name among the analysis's pictures ("sgi heatmap"); one per caption gets " A", " B" after it
    title: str  # what it shows
    scale: str  # what its colours or numbers run over
    draw: Hook  # (the method's scores, one per caption; the image) -> a PIL image or a plotly figure, or a list of
    # them, one per caption, where ``per_caption``
    per_caption: bool = False


@dataclass(frozen=True)
class MethodInfo:
    """A method as it describes itself: the page, its legend, Browse, eval and the tests read it from the registry."""

    name: str  # eval's ``--methods`` name and the key of its scores
    label: str  # the name people read: the score table, the legend, Browse's verdicts and overview
    legend: str  # what its score is, in the page's legend
    scale: str  # the range its scores take, in the legend
    caveat: str = ""  # what else the legend says of it, if anything
    page_order: int | None = None  # its place among the page's methods (table rows, legend, tabs); None: not run there
    tab: str | None = None  # its tab on the page: a module of ``explorer/ui/`` with a ``TITLE`` and a ``build``
    segment_map: SegmentMap | None = None  # its map for a caption segment, if its evidence has one
    figures: tuple[FigureInfo, ...] = ()  # its pictures of an analysis: those per caption (A's, then B's), then the
    # others, each in this order


@dataclass(frozen=True)
class Score:
    """How well ``caption`` matches the image by ``method``, with the evidence behind it."""

    method: str
    caption: str
    value: float
    evidence: Any = None


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


def get_method(name: str, encoder: DualEncoder, **options) -> ScoringMethod:
    if name not in REGISTRY:
        raise ValueError(f"unknown method {name!r}; known: {', '.join(REGISTRY)}")
    return REGISTRY[name](encoder, **options)
