"""VisMin (Awal et al., NeurIPS 2024): 2,084 Winoground-style items whose two images differ by one minimal change of
an object, an attribute, a spatial relation or a count. Published on the model hub as ``mair-lab/vismin-bench``,
split ``test``, rows ``{id, text_0, text_1, image_0, image_1, category}`` (parquet shards, or the folder the
authors' ``eval.py`` reads with ``load_from_disk``: ``test/data-*.arrow``). Scored as the authors' current
``vismin-bench/metric.py`` (``compute_contrastive_accuracy``, rabiulcste/vismin at 680a3ee, January 2025): each row's
caption 0 is image 0's and caption 1 image 1's, Winoground's text, image and group scores per category, every
relation strict.

The first release (November 2024) shuffled each row's captions and kept which is whose in an answer key,
``vismin-bench/solutions/sim_solution.csv`` (``idx, Text, Image, category``, each score's relations such as
``T0_I0 > T1_I0 & T1_I1 > T0_I1``), since removed. That key is still read where passed with ``--images``; found
beside the rows it is read only where it pairs nothing crosswise, since today's rows need none: a key that fits
another release's rows is refused, saying which layout each belongs to."""

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
    raise DatasetError(f"no VisMin test split in {data.name} (tried test-*.parquet, data/test-*.parquet, test/*.parquet "
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


def _key(data: Path, given: Path | None) -> tuple[Path | None, bool]:
    """The old answer key and whether it was passed (``--images``): ``given``, else ``sim_solution.csv`` in the
    data folder or its ``solutions/`` (the authors' ``vismin-bench`` folder, the rows in its ``data/``), else None."""
    if given is not None:
        return Path(given), True
    folder = data if data.is_dir() else data.parent
    return next((p for p in (folder / SOLUTION, folder / "solutions" / SOLUTION) if p.is_file()), None), False


def _pairings(rows: list[dict], key_file: Path, passed: bool) -> list[tuple[int, int]]:
    """Each row's pairing (image 0's caption, image 1's) from the old key, after checking the key fits the rows: the
    same length, each row's id and category, and (found beside the rows, not passed) no crosswise pairing."""
    keys = _read_table([key_file], ("idx", "Text", "category"))
    if len(keys) != len(rows):  # the authors zipped their predictions with the key in order, and asserted this
        raise DatasetError(f"{key_file.name} has {len(keys)} rows for {len(rows)} VisMin items: not the same split")
    out = []
    for n, (row, key) in enumerate(zip(rows, keys)):
        relation = " ".join(str(key["Text"]).split())
        if relation not in OWN:
            raise DatasetError(f"{key_file.name}: row {n + 2}: field 'Text' should be one of {' or '.join(OWN)}, "
                               f"got {relation!r}")
        if (str(key["idx"]), str(key["category"])) != (str(row.get("id")), str(row.get("category"))):
            raise DatasetError(f"{key_file.name}: row {n + 2} is item {key['idx']} ({key['category']}), but the "
                               f"data's row {n + 1} is item {row.get('id')} ({row.get('category')}): the key and the "
                               f"rows are not the same split in the same order")
        out.append(OWN[relation])
    crosswise = sum(p != (0, 1) for p in out)
    if crosswise and not passed:
        raise DatasetError(
            f"VisMin: the {SOLUTION} beside these rows pairs {crosswise} of {len(out)} rows' captions crosswise: it "
            f"is the answer key of the November 2024 release, whose rows were shuffled, while the hub's rows since "
            f"January 2025 put caption i with image i and are read without a key, as the authors' metric.py now "
            f"reads them. Remove {SOLUTION} to read today's rows, or pass it with --images where the rows are the "
            f"November 2024 release's")
    return out


def load_vismin(data: Path, images: Path | None = None, limit: int | None = None) -> list[Item]:
    """VisMin's test rows, caption i image i's (today's layout, as the authors' ``metric.py`` reads them), or each
    row paired by the November 2024 release's answer key where one is passed with ``images`` (or lies beside the
    data and pairs nothing crosswise), grouped by category."""
    data = Path(data)
    files = _shards(data)
    rows = _rows(files)
    key_file, passed = _key(data, images)
    pairings = _pairings(rows, key_file, passed) if key_file is not None else [(0, 1)] * len(rows)
    items = []
    for n, (row, right) in enumerate(zip(rows, pairings)):
        where = f"{files[0].name}: item {row.get('id', n) if isinstance(row, dict) else n}"
        refs = tuple(_image_from_cell(_get(row, k, where), files[0].parent, where, k) for k in ("image_0", "image_1"))
        items.append(Item(_text(row, "category", where), refs, (_text(row, "text_0", where), _text(row, "text_1", where)),
                          right=right, id=str(_get(row, "id", where))))
    return per_category(items, limit)
