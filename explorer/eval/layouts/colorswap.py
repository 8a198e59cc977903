"""ColorSwap (Burapacheep et al., 2024): 1,000 Winoground-style items whose two captions hold the same words, the
colour words moved to other objects. Published as ``data/test.json`` (and ``train.json``): a list of ``{id,
caption_1, caption_2, image_1, image_2, image_source, caption_source}``, image paths relative to that folder; or
the Hugging Face parquet export with the images inside (``test-*.parquet``, or as the model hub names its shards,
``default/test/0000.parquet``). Scored as Winoground: text, image and group."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Mapping

from explorer.core.items import Item
from explorer.eval.dataset_loaders import (
    DatasetError, _extras, _get, _image_from_cell, _inner, _read_table, _text, per_category,
)
from explorer.eval.layouts import read_list

log = logging.getLogger(__name__)

FIELDS = ("id", "caption_1", "caption_2", "image_1", "image_2")
SPLITS = ("test", "train")  # the test split is the benchmark; train only when it is all there is, and then said
DEFAULT_KIND = "colorswap"


def _split_files(data: Path, split: str) -> list[Path]:
    """A split's files in ``data``: its JSON list, or its parquet shards as the export (``test-*.parquet``) or the
    model hub (``default/test/0000.parquet``, ``test/0000.parquet``) names them."""
    if (data / f"{split}.json").is_file():
        return [data / f"{split}.json"]
    return (sorted(data.glob(f"{split}*.parquet")) or sorted(data.glob(f"default/{split}/*.parquet"))
            or sorted(data.glob(f"{split}/*.parquet")))


def _files(data: Path) -> tuple[list[Path], str]:
    """The benchmark's files and their split: the test split, or the train split where it is all there is."""
    if data.is_file():
        return [data], "train" if "train" in data.name else "test"
    data = _inner(data, lambda p: any(_split_files(p, s) for s in SPLITS))
    for split in SPLITS:
        if found := _split_files(data, split):
            return found, split
    raise DatasetError(f"no ColorSwap split in {data} (tried test.json, test*.parquet, default/test/*.parquet, "
                       f"test/*.parquet, and the same for train)")


def _rows(files: list[Path]) -> list[Any]:
    return read_list(files[0]) if files[0].suffix == ".json" else _read_table(files, FIELDS)


def load_colorswap(data: Path, images: Path | None = None, limit: int | None = None) -> list[Item]:
    """ColorSwap's items, grouped by their ``image_source`` (the generator that drew them) where the file has it; the
    train split's kinds named so (``dalle3 (train)``), as the report then shows."""
    files, split = _files(Path(data))
    if split != "test":
        log.warning("ColorSwap: no test split in %s; scoring its %s split, named in every kind", data, split)
    root = Path(images) if images else files[0].parent
    items = []
    for n, row in enumerate(_rows(files)):
        key = row.get("id", n) if isinstance(row, Mapping) else n
        where = f"{files[0].name}: item {key}"
        refs = tuple(_image_from_cell(_get(row, k, where), root, where, k) for k in ("image_1", "image_2"))
        kind = str(row.get("image_source") or DEFAULT_KIND) + ("" if split == "test" else f" ({split})")
        items.append(Item(str(kind), refs, (_text(row, "caption_1", where), _text(row, "caption_2", where)),
                          id=str(_get(row, "id", where)), info=_extras(row, FIELDS)))
    return per_category(items, limit)
