"""The one kind of benchmark item every benchmark is made of, the world's and the public ones alike: n images and m
captions, each image with its own caption among them.

A Winoground-style swap item is 2 x 2 (caption i belongs to image i, the other pairing is the swap); a SugarCrepe-style
choice item is 1 x m (one image, its right caption among foils). An item's images are world scenes (rendered at the
size a model wants) or references to image files (read when scored): ``picture`` turns either into a PIL image.
``kind`` is what scores are grouped by (the world's swap kind, a public benchmark's category or tag); ``category``
adds the world split in front of it, for browsing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from PIL import Image

DEFAULT_SIZE = 128  # a world scene's side in pixels when nothing asks for another
NO_CAPTION = -1  # ``right`` of a candidate image with no caption of its own (one caption told among many images)


@runtime_checkable
class Renderable(Protocol):
    def render(self, size: int = DEFAULT_SIZE) -> Image.Image: ...


def picture(ref: Any, size: int | None = None) -> Image.Image:
    """A world scene rendered at ``size`` pixels (128 when None), or an image file's reference loaded."""
    return ref.render(size or DEFAULT_SIZE) if isinstance(ref, Renderable) else ref.load()


@dataclass(frozen=True)
class Item:
    """``images`` and ``captions``: image i's own caption is ``captions[right[i]]`` (``right`` left out: caption i is
    image i's), every other caption a foil for it but those of ``also_right``, which must beat the foils too; an image
    whose ``right`` is ``NO_CAPTION`` is a candidate the item's one caption is told against (text to image)."""

    kind: str
    images: tuple[Any, ...]
    captions: tuple[str, ...] = field(repr=False)
    right: tuple[int, ...] = ()
    split: str = ""  # the world's split; "" for a public benchmark
    id: str = ""
    info: dict[str, Any] = field(default_factory=dict, compare=False)
    also_right: tuple[int, ...] = ()  # captions right for every image besides its own (SugarCrepe++'s second positive)

    def __post_init__(self) -> None:
        if not self.right:
            object.__setattr__(self, "right", tuple(range(len(self.images))))
        owned = [c for c in self.right if c != NO_CAPTION]
        if len(self.right) != len(self.images) or not owned or not all(0 <= c < len(self.captions)
                                                                       for c in owned + list(self.also_right)):
            raise ValueError(f"item {self.id!r}: each of its {len(self.images)} images needs one of its "
                             f"{len(self.captions)} captions, got {self.right}")

    @property
    def category(self) -> str:
        return f"{self.split}/{self.kind}" if self.split else self.kind

    def pictures(self, size: int | None = None) -> list[Image.Image]:
        return [picture(ref, size) for ref in self.images]
