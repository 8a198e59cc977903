"""SPEC (Peng et al., CVPR 2024): synthetic pictures that differ in one attribute of an object: its absolute size,
relative size, absolute position, relative position, existence or count. Published in the repository
``wjpoom/SPEC`` (data on the model hub) as one folder per subset holding ``image2text.json`` (a picture told among
captions) and ``text2image.json`` (a caption told among pictures), lists of ``{query, keys, label}`` with image
paths relative to the subset's folder. Scored as the authors' ``spec/eval.py`` with their model wrappers' argmax:
image-to-text and text-to-image accuracy per subset, each averaged over the subsets: the two figures the paper
reports side by side, and no figure over both."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from explorer.core.items import NO_CAPTION, Item
from explorer.eval.dataset_loaders import DatasetError, ImageRef, _get, _inner, _named, _text, per_category
from explorer.eval.headline import mean_over_kinds
from explorer.eval.layouts import read_list

SUBSETS = ("absolute_size", "relative_size", "absolute_spatial", "relative_spatial", "existence", "count")
FILES = {"i2t": "image2text.json", "t2i": "text2image.json"}
DIRECTIONS = tuple(FILES)  # the paper's two headline cells: each direction's accuracy averaged over the subsets


def _label(row: Any, n: int, where: str) -> int:
    label = _get(row, "label", where)
    if not isinstance(label, int) or not 0 <= label < n:
        raise DatasetError(f"{where}: field 'label' should be the index of one of its {n} keys, got {label!r}")
    return label


def _keys(row: Any, where: str) -> list[str]:
    keys = _get(row, "keys", where)
    if not isinstance(keys, list) or len(keys) < 2 or not all(isinstance(k, str) for k in keys):
        raise DatasetError(f"{where}: field 'keys' should be a list of at least two texts or image paths")
    return keys


def _items(folder: Path, subset: str, direction: str) -> list[Item]:
    path = folder / FILES[direction]
    items = []
    for n, row in enumerate(read_list(path)):
        where = f"{subset}/{path.name}: item {n}"
        keys, query = _keys(row, where), _text(row, "query", where)
        label = _label(row, len(keys), where)
        kind, info = f"{subset} {direction}", {"direction": direction}
        if direction == "i2t":
            image = ImageRef(where, path=_named(folder, query, where))
            items.append(Item(kind, (image,), tuple(keys), right=(label,), id=f"{subset}/{direction}/{n}", info=info))
        else:
            refs = tuple(ImageRef(where, path=_named(folder, k, where)) for k in keys)
            right = tuple(0 if k == label else NO_CAPTION for k in range(len(keys)))
            items.append(Item(kind, refs, (query,), right=right, id=f"{subset}/{direction}/{n}", info=info))
    return items


def load_spec(data: Path, images: Path | None = None, limit: int | None = None) -> list[Item]:
    """Every SPEC subset folder present in ``data`` (or ``data`` itself, one subset's folder), two kinds each:
    ``SUBSET i2t`` and ``SUBSET t2i``."""
    data = _inner(Path(data), lambda p: any((p / s / FILES["i2t"]).is_file() for s in SUBSETS))
    found = [(s, data / s) for s in SUBSETS if (data / s / FILES["i2t"]).is_file()]
    if not found and (data / FILES["i2t"]).is_file():
        found = [(data.name, data)]
    if not found:
        raise DatasetError(f"no SPEC subset in {data} (expected {', '.join(SUBSETS)} folders holding "
                           f"{FILES['i2t']} and {FILES['t2i']})")
    if images is not None:
        raise DatasetError("SPEC: image paths are relative to each subset's folder; --images does not apply")
    items = [it for subset, folder in found for direction in FILES for it in _items(folder, subset, direction)]
    return per_category(items, limit)


def extras(items: Sequence[Item], found: Mapping[str, Sequence], encoder: object) -> dict:
    """The authors' two averages: each direction's accuracy averaged over the subsets (``i2t`` and ``t2i`` cells)."""
    out = {}
    for name, outcomes in found.items():
        out[name] = {}
        for direction in FILES:
            kept = [(it.kind, o.correct) for it, o in zip(items, outcomes) if it.info.get("direction") == direction]
            if kept:
                cell = mean_over_kinds([k for k, _ in kept], [h for _, h in kept], "accuracy")
                out[name][direction] = cell
    return out
