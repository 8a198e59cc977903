"""The one interface every scoring method shares, and the registry that names them."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

from PIL import Image

from explorer.encoders import DualEncoder


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
