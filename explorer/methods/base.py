"""The one interface every scoring method shares, and the registry that names them."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Sequence

from PIL import Image

from explorer.cache import LRUCache
from explorer.encoders import DualEncoder, image_key


@dataclass(frozen=True)
class Score:
    """How well ``caption`` matches the image by ``method``, with the evidence behind it."""

    method: str
    caption: str
    value: float
    evidence: Any = None


class ScoringMethod(ABC):
    """Scores captions against an image; image-side work is cached so caption edits are cheap."""

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


def register(cls: type[ScoringMethod]) -> type[ScoringMethod]:
    REGISTRY[cls.name] = cls
    return cls


def get_method(name: str, encoder: DualEncoder, **options) -> ScoringMethod:
    if name not in REGISTRY:
        raise ValueError(f"unknown method {name!r}; known: {', '.join(REGISTRY)}")
    return REGISTRY[name](encoder, **options)
