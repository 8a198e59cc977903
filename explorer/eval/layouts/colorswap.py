"""ColorSwap (Burapacheep et al., 2024): 1,000 Winoground-style items whose two captions hold the same words, the
colour words moved to other objects. Published as ``data/test.json`` (and ``train.json``): a list of ``{id,
caption_1, caption_2, image_1, image_2, image_source, caption_source}``, image paths relative to that folder; or
the Hugging Face parquet export with the images inside. Scored as Winoground: text, image and group."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from explorer.core.items import Item
from explorer.eval.dataset_loaders import (
    DatasetError, _extras, _get, _image_from_cell, _inner, _read_table, _text, per_category,
)
from explorer.eval.layouts import read_list

FIELDS = ("id", "caption_1", "caption_2", "image_1", "image_2")
SPLIT_FILES = ("test.json", "train.json")  # the test split is the benchmark; train only when it is all there is
DEFAULT_KIND = "colorswap"


def _files(data: Path) -> list[Path]:
    if data.is_file():
        return [data]
    data = _inner(data, lambda p: any((p / f).is_file() for f in SPLIT_FILES) or any(p.glob("*.parquet")))
    found = [data / f for f in SPLIT_FILES if (data / f).is_file()][:1] or sorted(data.glob("test*.parquet"))
    if not found:
        raise DatasetError(f"no ColorSwap test.json, train.json or test*.parquet in {data}")
    return found


def _rows(files: list[Path]) -> list[Any]:
    return read_list(files[0]) if files[0].suffix == ".json" else _read_table(files, FIELDS)


def load_colorswap(data: Path, images: Path | None = None, limit: int | None = None) -> list[Item]:
    """ColorSwap's items, grouped by their ``image_source`` (the generator that drew them) where the file has it."""
    files = _files(Path(data))
    root = Path(images) if images else files[0].parent
    items = []
    for n, row in enumerate(_rows(files)):
        key = row.get("id", n) if isinstance(row, Mapping) else n
        where = f"{files[0].name}: item {key}"
        refs = tuple(_image_from_cell(_get(row, k, where), root, where, k) for k in ("image_1", "image_2"))
        kind = row.get("image_source") or DEFAULT_KIND
        items.append(Item(str(kind), refs, (_text(row, "caption_1", where), _text(row, "caption_2", where)),
                          id=str(_get(row, "id", where)), info=_extras(row, FIELDS)))
    return per_category(items, limit)
