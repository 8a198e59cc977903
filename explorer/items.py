"""The two kinds of benchmark item every benchmark is made of, the world's and the public ones alike.

An item's images are world scenes (rendered at the size a model wants) or references to image files (read when
scored): ``picture`` turns either into a PIL image. ``kind`` is what scores are grouped by (the world's swap kind, a
public benchmark's category or tag); ``category`` adds the world split in front of it, for browsing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, Union, runtime_checkable

from PIL import Image

DEFAULT_SIZE = 128  # a world scene's side in pixels when nothing asks for another


@runtime_checkable
class Renderable(Protocol):
    def render(self, size: int = DEFAULT_SIZE) -> Image.Image: ...


def picture(ref: Any, size: int | None = None) -> Image.Image:
    """A world scene rendered at ``size`` pixels (128 when None), or an image file's reference loaded."""
    return ref.render(size or DEFAULT_SIZE) if isinstance(ref, Renderable) else ref.load()


class _Shown:
    """What both kinds of item share: the category they are browsed by, and their images as pictures."""

    kind: str
    split: str
    images: tuple[Any, ...]

    @property
    def category(self) -> str:
        return f"{self.split}/{self.kind}" if self.split else self.kind

    def pictures(self, size: int | None = None) -> list[Image.Image]:
        return [picture(ref, size) for ref in self.images]


@dataclass(frozen=True)
class SwapItem(_Shown):
    """Two images and two captions, caption i belonging to image i; the other pairing is the swap (Winoground)."""

    kind: str
    images: tuple[Any, Any]
    captions: tuple[str, str]
    split: str = ""  # the world's split; "" for a public benchmark
    id: str = ""
    info: dict[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class ChoiceItem(_Shown):
    """One image and several captions; ``captions[right]`` is the one that describes it (SugarCrepe, ARO, the world's
    single objects)."""

    kind: str
    image: Any
    captions: tuple[str, ...] = field(repr=False)
    right: int = 0
    split: str = ""
    id: str = ""
    info: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def images(self) -> tuple[Any]:  # type: ignore[override]
        return (self.image,)


Item = Union[SwapItem, ChoiceItem]
