"""VALSE (Parcalabescu et al., ACL 2022): linguistic phenomena in pieces (existence, plurality, counting, spatial
relations, actions, coreference, FOIL-it), each an image with a caption and a foil that changes one phenomenon.
Published as ``data/<piece>.json``: ``{id: {dataset, image_file, caption, foil, mturk: {caption, foil, other},
...}}``; the images come from each piece's source dataset. Only the items the annotators validated are the
benchmark (``mturk.caption >= 2``, as the authors' scripts keep). Scored as the authors score contrastive models:
pairwise accuracy acc_r, the caption above its foil."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Sequence

from explorer.core.data_roots import OUTSIDE, OutsideRoots
from explorer.core.items import Item
from explorer.eval.dataset_loaders import DatasetError, ImageRef, _get, _inner, _number, _read_json, _text, per_category
from explorer.eval.layouts import first_inside

log = logging.getLogger(__name__)

# piece -> (its file names in the repository's data/ and its scripts' config, the image folder those scripts read)
PIECES = {
    "existence": (("existence.json",), "visual7w/images"),
    "plurals": (("plurals.json",), "plurals/test_images"),
    "counting-hard": (("counting-hard.json", "counting_hard.json"), "visual7w/images"),
    "counting-small": (("counting-small-quant.json",), "visual7w/images"),
    "counting-adversarial": (("counting-adversarial.json", "counting_adversarial.json"), "visual7w/images"),
    "relations": (("relations.json", "relation.json"), "relations/test_images"),
    "action-replacement": (("action-replacement.json",), "actions/images_512"),
    "actant-swap": (("actant-swap.json", "actions/actant-swap.json"), "actions/images_512"),
    "coreference-standard": (("coreference-standard.json",), "coref/release_too_many_is_this_in_color/images"),
    "coreference-hard": (("coreference-hard.json",), "coref/release_v18/test_images"),
    "foil-it": (("foil-it.json",), "val2014"),
}
VALID = 2  # annotators (of 3) who chose the caption, not the foil: the authors' filter


def _caption(row: dict, where: str) -> str:
    """The caption: text, or (in some pieces) a list whose first entry the authors' scripts take."""
    value = _get(row, "caption", where)
    if isinstance(value, list) and value and isinstance(value[0], str):
        return value[0]
    return _text(row, "caption", where)


def _piece(path: Path, piece: str, folder: str, roots: Sequence[Path]) -> list[Item]:
    table = _read_json(path)
    if not isinstance(table, dict):
        raise DatasetError(f"{path.name}: expected an object {{id: item}}, got {type(table).__name__}")
    items, left = [], 0
    for key, row in table.items():
        where = f"{path.name}: item {key!r}"
        if _number(_get(row, "mturk", where), "caption", f"{where}, field 'mturk'") < VALID:
            left += 1
            continue
        name = _text(row, "image_file", where)
        try:
            ref = first_inside(roots[0], [r / f / name for r in roots for f in (Path(folder), Path("images"), Path())])
        except OutsideRoots:
            raise DatasetError(f"{where}: its image path {OUTSIDE}") from None
        items.append(Item(piece, (ImageRef(where, path=ref),), (_caption(row, where), _text(row, "foil", where)),
                          id=str(key), info={"dataset": row.get("dataset", ""), "phenomenon": piece}))
    if left:
        log.info("VALSE %s: %d items not validated by the annotators (mturk caption < %d) left out", piece, left, VALID)
    return items


def load_valse(data: Path, images: Path | Sequence[Path] | None = None, limit: int | None = None) -> list[Item]:
    """Every VALSE piece file in ``data`` (or its ``data/``), a kind each, its validated items; each image looked for
    under the data folder, then under each of ``images`` (the authors' ``config.py`` reads FOIL-it's COCO images from
    a folder of their own), in the piece's source folder (``visual7w/images/``, ``val2014/``, ...), ``images/`` or
    beside."""
    data = Path(data)
    if data.is_file():
        found = [(p, names, f) for p, (names, f) in PIECES.items() if data.name in names][:1]
        files = [(data, p, f) for p, _, f in found]
    else:
        data = _inner(data, lambda d: any((d / n).is_file() for names, _ in PIECES.values() for n in names))
        files = [(data / n, p, f) for p, (names, f) in PIECES.items()
                 for n in [next((n for n in names if (data / n).is_file()), None)] if n]
    if not files:
        raise DatasetError(f"no VALSE piece file in {data} (expected e.g. existence.json, relations.json, "
                           f"counting-hard.json)")
    given = [images] if isinstance(images, (str, Path)) else list(images or [])
    roots = [files[0][0].parent, *map(Path, given)]
    items = [it for path, piece, folder in files for it in _piece(path, piece, folder, roots)]
    return per_category(items, limit)
