"""The one interface every scoring method shares, and the registry in which each method describes itself."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Sequence, TypeVar

from PIL import Image

from explorer.cache import LRUCache
from explorer.encoders import DualEncoder, image_key


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


@dataclass(frozen=True)
class Score:
    """How well ``caption`` matches the image by ``method``, with the evidence behind it."""

    method: str
    caption: str
    value: float
    evidence: Any = None


class ScoringMethod(ABC):
    """Scores captions against an image; image-side work is cached so caption edits are cheap."""

    info: ClassVar[MethodInfo]  # set by ``register``, with ``name`` and ``label`` from it
    name: ClassVar[str]
    label: ClassVar[str]
    trained: bool = True  # False where the method runs on seeded random weights (no trained head for this encoder)

    def __init__(self, encoder: DualEncoder) -> None:
        self.encoder = encoder
        self._scores: LRUCache[Score] = LRUCache()

    def cached_scores(
        self, image: Image.Image, captions: Sequence[str], compute: Callable[[list[str]], list[Score]]
    ) -> list[Score]:
        """One score per caption; a caption scored on this image before comes from the cache, the new ones are
        computed together: a re-score after a caption edit computes only the edited caption."""
        key = image_key(image)
        new = [c for c in dict.fromkeys(captions) if f"{key}:{c}" not in self._scores]
        for caption, score in zip(new, compute(new) if new else []):
            self._scores.put(f"{key}:{caption}", score)
        return [self._scores.get(f"{key}:{c}") for c in captions]

    def prepare(self, images: Sequence[Image.Image]) -> None:
        """Encode many images in batches ahead of scoring (the default: global and patch features)."""
        self.encoder.encode_images(images)

    @abstractmethod
    def score(self, image: Image.Image, captions: Sequence[str]) -> list[Score]:
        """One score per caption, in order."""


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


def get_method(name: str, encoder: DualEncoder, **options) -> ScoringMethod:
    if name not in REGISTRY:
        raise ValueError(f"unknown method {name!r}; known: {', '.join(REGISTRY)}")
    return REGISTRY[name](encoder, **options)
