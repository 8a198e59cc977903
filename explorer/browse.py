"""Browsing a benchmark item by item: the world's swap items or a public benchmark's, and their filters."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Mapping, Protocol, Sequence

import numpy as np

from PIL import Image

from explorer import world
from explorer.datasets import PairItem, SingleItem, load_benchmark
from explorer.evaluate import item_similarities, swap_outcome
from explorer.methods import ScoringMethod

BENCHMARKS = ("world", "sugarcrepe", "winoground", "bivlc", "aro")


class Loadable(Protocol):
    def load(self) -> Image.Image: ...


@dataclass(frozen=True)
class SceneRef:
    """A world scene, rendered when shown."""

    scene: world.Scene
    size: int = 128

    def load(self) -> Image.Image:
        return self.scene.render(self.size)


@dataclass(frozen=True)
class BrowseItem:
    """What the browser shows: one or two images and two captions (caption i belongs to image i)."""

    id: str
    category: str
    images: tuple[Loadable, ...]
    captions: tuple[str, str]


def load_items(benchmark: str, data: str | Path | None = None, limit: int | None = 50) -> list[BrowseItem]:
    """A benchmark's items; ``limit`` per world split and kind, or per public benchmark category."""
    if benchmark == "world":
        return [
            BrowseItem(f"{split}/{kind}/{i}", f"{split}/{kind}", tuple(SceneRef(s) for s in it.images), it.captions)
            for split in world.SPLITS for kind in world.KINDS
            for i, it in enumerate(world.swap_items(split, kind, limit or 50))
        ]
    if not data:
        raise ValueError(f"{benchmark} needs the path of its files (in the benchmark's own layout)")
    out = []
    for it in load_benchmark(benchmark, Path(data), limit):
        if isinstance(it, PairItem):
            out.append(BrowseItem(it.id, it.category, it.images, it.captions))
        elif isinstance(it, SingleItem):
            out.append(BrowseItem(it.id, it.category, (it.image,), (it.caption, it.negative_caption)))
    return out


def is_right(s: np.ndarray) -> bool:
    """From ``s[c, i]``: the group score for two images; caption above negative caption for one."""
    return swap_outcome(s).group if s.shape[1] == 2 else bool(s[0, 0] > s[1, 0])


def method_is_right(method: ScoringMethod, item: BrowseItem) -> bool:
    return is_right(item_similarities(method, [ref.load() for ref in item.images], item.captions))


def similarities(methods: Mapping[str, ScoringMethod], item: BrowseItem,
                 images: Sequence[Image.Image]) -> dict[str, np.ndarray]:
    """Each method's ``s[c, i]`` on one item's loaded images (their verdicts: ``is_right``)."""
    return {name: item_similarities(m, images, item.captions) for name, m in methods.items()}


def select(
    items: Sequence[BrowseItem],
    category: str | None = None,
    wrong_by: ScoringMethod | None = None,
    progress: Callable[[Iterable], Iterable] = lambda it: it,
) -> list[int]:
    """Indices of the items in ``category`` (all when None) that ``wrong_by`` gets wrong (all when None)."""
    keep = [i for i, it in enumerate(items) if category in (None, "", "all") or it.category == category]
    if wrong_by is not None:
        keep = [i for i in progress(keep) if not method_is_right(wrong_by, items[i])]
    return keep
