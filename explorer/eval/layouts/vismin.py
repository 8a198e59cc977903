"""VisMin (Awal et al., NeurIPS 2024): 2,084 Winoground-style items whose two images differ by one minimal change of
an object, an attribute, a spatial relation or a count. Published on the model hub as ``mair-lab/vismin-bench``,
split ``test``, rows ``{id, text_0, text_1, image_0, image_1, category}`` (parquet shards, or the folder the
authors' ``eval.py`` reads with ``load_from_disk``: ``test/data-*.arrow``). The rows do not say which caption is
whose image: the authors' repository holds that in ``vismin-bench/solutions/sim_solution.csv`` (``idx, Text, Image,
category``, each score's relations such as ``T0_I0 > T1_I0 & T1_I1 > T0_I1``), read beside the rows. Scored as the
authors' ``metric.compute_contrastive_accuracy``: Winoground's text, image and group scores per category, every
relation strict."""

from __future__ import annotations

from pathlib import Path

from explorer.core.items import Item
from explorer.eval.dataset_loaders import DatasetError, _get, _image_from_cell, _read_table, _text, per_category
from explorer.eval.table_files import Budget, arrow_rows

FIELDS = ("id", "text_0", "text_1", "image_0", "image_1", "category")
SOLUTION = "sim_solution.csv"  # the authors' answer key, in their repository's vismin-bench/solutions/
OWN = {  # the solution's text relations -> each image's own caption
    "T0_I0 > T1_I0 & T1_I1 > T0_I1": (0, 1),
    "T1_I0 > T0_I0 & T0_I1 > T1_I1": (1, 0),
}


def _shards(data: Path) -> list[Path]:
    """The test split's files under ``data``: hub parquet shards or ``load_from_disk``'s arrow files."""
    if data.is_file():
        return [data]
    for pattern in ("test-*.parquet", "data/test-*.parquet", "test/*.parquet", "*/test/*.parquet", "test/*.arrow",
                    "data/test/*.arrow", "*.parquet"):
        if found := sorted(data.glob(pattern)):
            return found
    raise DatasetError(f"no VisMin test split in {data} (tried test-*.parquet, data/test-*.parquet, test/*.parquet "
                       f"and load_from_disk's test/*.arrow)")


def _rows(files: list[Path]) -> list[dict]:
    if files[0].suffix != ".arrow":
        return _read_table(files, FIELDS)
    import pyarrow as pa

    rows: list[dict] = []
    budget = Budget(f"{files[0].parent.name}/*.arrow")
    for path in files:
        try:
            rows += arrow_rows(path, budget)
        except pa.ArrowInvalid as exc:
            raise DatasetError(f"{path.name}: cannot be read as an arrow file ({exc})") from exc
    return rows


def _solution(data: Path, key: Path | None) -> Path:
    """The answer key: ``key`` where given, else ``sim_solution.csv`` in the data folder or its ``solutions/`` (the
    authors' ``vismin-bench`` folder, the rows in its ``data/``)."""
    if key is not None:
        return Path(key)
    folder = data if data.is_dir() else data.parent
    for place in (folder / SOLUTION, folder / "solutions" / SOLUTION):
        if place.is_file():
            return place
    raise DatasetError(f"VisMin: no {SOLUTION} beside {data}: the hub's rows do not say which caption is whose "
                       f"image; put the authors' vismin-bench/solutions/{SOLUTION} in the data folder or its "
                       f"solutions/, or pass the file with --images")


def load_vismin(data: Path, images: Path | None = None, limit: int | None = None) -> list[Item]:
    """VisMin's test rows, each caption paired with its image by the authors' answer key (``images``: its path where
    it is not beside the data), grouped by the key's category."""
    data = Path(data)
    files = _shards(data)
    key_file = _solution(data, images)
    keys = _read_table([key_file], ("Text", "category"))
    rows = _rows(files)
    if len(keys) != len(rows):  # the authors zip their predictions with the key in order, and assert this
        raise DatasetError(f"{key_file.name} has {len(keys)} rows for {len(rows)} VisMin items: not the same split")
    items = []
    for n, (row, key) in enumerate(zip(rows, keys)):
        where = f"{files[0].name}: item {row.get('id', n) if isinstance(row, dict) else n}"
        relation = " ".join(str(key["Text"]).split())
        if relation not in OWN:
            raise DatasetError(f"{key_file.name}: row {n + 2}: field 'Text' should be one of {' or '.join(OWN)}, "
                               f"got {relation!r}")
        refs = tuple(_image_from_cell(_get(row, k, where), files[0].parent, where, k) for k in ("image_0", "image_1"))
        items.append(Item(str(key["category"]), refs, (_text(row, "text_0", where), _text(row, "text_1", where)),
                          right=OWN[relation], id=str(_get(row, "id", where))))
    return per_category(items, limit)
