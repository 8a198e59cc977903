"""Every benchmark by name: how its items are made (the world's drawn per split, the public ones read from files)
and how its scores are summed up. The CLI's ``--benchmark``, the Browse tab and the evaluation all read this one list.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterator

from explorer.core import cancel
from explorer import world
from explorer.core.data_roots import DataAccess, OutsideRoots, confined
from explorer.eval.dataset_loaders import DatasetError, load_aro, load_bivlc, load_sugarcrepe, load_winoground
from explorer.core.items import Item
from explorer.eval.pairs import load_pairs, read_pairs

log = logging.getLogger(__name__)
WORLD_LIMIT = 200  # an evaluation's world items per split and kind unless asked otherwise (public ones: every item)


@dataclass(frozen=True)
class Benchmark:
    """``load(data, images, limit)`` for a public benchmark's files, or ``load(split, limit)`` for a world split."""

    name: str
    load: Callable[..., list[Item]]
    from_files: bool = True  # read from --data; else drawn from the world, one split at a time
    metric: str = "accuracy"  # what the hit rate of an item with one image is called
    overall: bool = True  # an "all" cell of every kind together beside each kind's
    chunk: int = 32  # items scored together (and the unit of sharding): the batches a method encodes
    skipped: Callable[[Path], list[str]] | None = None  # the rows of its files it leaves out, said to the user


def world_swaps(split: str, limit: int) -> list[Item]:
    """``limit`` swap items of each kind of one world split, kind after kind."""
    items: list[Item] = []
    for kind in world.KINDS:
        cancel.check()
        items += [replace(it, id=f"{split}/{kind}/{i}") for i, it in enumerate(world.swap_items(split, kind, limit))]
    return items


def world_single(split: str, limit: int) -> list[Item]:
    """``limit`` single-object images of one world split, each told among all objects' captions."""
    return [replace(it, id=f"{split}/single/{i}") for i, it in enumerate(world.single_items(split, limit))]


BENCHMARKS: dict[str, Benchmark] = {b.name: b for b in (
    Benchmark("world", world_swaps, from_files=False),
    Benchmark("world-single", world_single, from_files=False, metric="top1", overall=False, chunk=64),
    Benchmark("sugarcrepe", load_sugarcrepe),
    Benchmark("winoground", load_winoground),
    Benchmark("bivlc", load_bivlc),
    Benchmark("aro", load_aro),
    Benchmark("pairs", load_pairs, skipped=lambda data: [str(row) for row in read_pairs(data)[1]]),
)}


def benchmark(name: str) -> Benchmark:
    if name not in BENCHMARKS:
        raise ValueError(f"unknown benchmark {name!r}; known: {', '.join(BENCHMARKS)}")
    return BENCHMARKS[name]


def load_items(name: str, data: str | Path | None = None, limit: int | None = None, images: str | Path | None = None,
               split: str | None = None, access: DataAccess = DataAccess()) -> list[Item]:
    """A benchmark's items: ``limit`` per kind (per world split and kind, or per public category; the world's
    default 50); a world benchmark's ``split``, or all its test splits when None; a public one's files at ``data``,
    read as ``access`` allows (the CLI's by default: any data path, the paths its files name kept inside its folder)."""
    b = benchmark(name)
    if not b.from_files:
        return [it for s in ([split] if split else world.SPLITS) for it in b.load(s, limit or 50)]
    with _reading(name, data, images, access) as (path, image_folder):
        items = b.load(path, image_folder, limit)
    log.info("%s: %d items from %s", name, len(items), data)
    return items


def left_out(name: str, data: str | Path | None, images: str | Path | None = None,
             access: DataAccess = DataAccess()) -> list[str]:
    """The rows of a benchmark's files that its loader leaves out (an own pairs file's bad rows), each in words."""
    b = benchmark(name)
    if b.skipped is None or not data:
        return []
    with _reading(name, data, images, access) as (path, _):
        return b.skipped(path)


@contextmanager
def _reading(name: str, data: str | Path | None, images: str | Path | None,
             access: DataAccess) -> Iterator[tuple[Path, Path | None]]:
    """The benchmark's data path and image folder as ``access`` reads them, with every file read inside the block
    confined to the benchmark's folders; a path refused by ``access`` as a ``DatasetError`` naming nothing of it."""
    if not data:
        raise ValueError(f"{name} needs the path of its files (in the benchmark's own layout)")
    try:
        path, folder = access.typed(str(data)), Path(images) if images else None
        if not path.exists():
            raise DatasetError(f"{name}: no file or folder at {data}")
        with confined(None if access.outside else access.bases(path, folder)):
            yield path, folder
    except OutsideRoots as exc:
        raise DatasetError(f"{name}: {exc}") from None
