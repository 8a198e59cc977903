"""Public benchmarks read from local copies in their published layouts: SugarCrepe, Winoground, BiVLC, ARO.

Each loader gives ``explorer.core.items`` items whose images are ``ImageRef``s, read only when scored; the registry of
all benchmarks, the world's too, is ``explorer.eval.benchmark_registry``.
"""

from __future__ import annotations

import io
import logging
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from PIL import Image, UnidentifiedImageError

from explorer.core import cancel
from explorer.core.data_roots import OUTSIDE, OutsideRoots, inside
from explorer.core.items import Item
from explorer.eval.table_files import Budget, DatasetError, frame, read_json, read_jsonl
from explorer.images.inputs import InputError, load_image, normalize_image

log = logging.getLogger(__name__)

SUGARCREPE_CATEGORIES = ("add_obj", "add_att", "replace_obj", "replace_att", "replace_rel", "swap_obj", "swap_att")
ARO_FILES = {"VG-Relation": "visual_genome_relation.json", "VG-Attribution": "visual_genome_attribution.json"}
WINOGROUND_FIELDS = ("id", "image_0", "image_1", "caption_0", "caption_1", "tag")
BIVLC_FIELDS = ("image", "caption", "negative_caption", "negative_image", "type")
ARO_FIELDS = ("image_path", "bbox_x", "bbox_y", "bbox_w", "bbox_h", "true_caption", "false_caption")
_UNBOUNDED = 1 << 30  # load_image's max_side when a box in original pixels is cropped afterwards


@dataclass(frozen=True)
class ImageRef:
    """An image read only when scored: a file or encoded bytes, optionally cropped to a box (x, y, w, h)."""

    source: str
    path: Path | None = None
    data: bytes | None = field(default=None, repr=False)
    box: tuple[float, float, float, float] | None = None

    def load(self) -> Image.Image:
        """The RGB image (cropped to ``box`` in original pixels), or a ``DatasetError`` naming the item."""
        if self.data is None and (self.path is None or not self.path.is_file()):
            raise DatasetError(f"{self.source}: image file {self.path} not found")
        try:
            if self.data is not None:
                with Image.open(io.BytesIO(self.data)) as im:
                    im.load()
                    image = normalize_image(im, _UNBOUNDED if self.box else None)
            else:
                image = load_image(self.path, _UNBOUNDED if self.box else None)
        except InputError as exc:  # a file's own words, naming it
            raise DatasetError(f"{self.source}: {exc}") from exc
        except Image.DecompressionBombError as exc:
            raise DatasetError(f"{self.source}: its picture has too many pixels to be read here") from exc
        except UnidentifiedImageError as exc:
            raise DatasetError(f"{self.source}: its picture is not an image this app can read (PNG, JPEG, WebP, "
                               f"TIFF, ...)") from exc
        except (OSError, SyntaxError, ValueError) as exc:  # a decoder's words, without the objects it names
            said = re.sub(r"<[^<>]* at 0x[0-9a-fA-F]+>", "it", str(exc))
            raise DatasetError(f"{self.source}: its picture could not be decoded ({said})") from exc
        if self.box is None:
            return image
        x, y, w, h = self.box
        return normalize_image(image.crop((round(x), round(y), round(x + max(w, 1)), round(y + max(h, 1)))))


# ---------------------------------------------------------------- reading files and fields


def _missing(value: Any) -> bool:
    return value is None or value == "" or (isinstance(value, float) and math.isnan(value))


def _get(row: Any, name: str, where: str) -> Any:
    """``row[name]``, or a ``DatasetError`` saying that ``where`` lacks it."""
    if not isinstance(row, Mapping):
        raise DatasetError(f"{where} is not an object (got {type(row).__name__})")
    if name not in row or _missing(row[name]):
        raise DatasetError(f"{where} has no field {name!r}")
    return row[name]


def _text(row: Any, name: str, where: str) -> str:
    value = _get(row, name, where)
    if not isinstance(value, str):
        raise DatasetError(f"{where}: field {name!r} should be text, got {value!r}")
    return value


def _number(row: Any, name: str, where: str) -> float:
    value = _get(row, name, where)
    try:
        return float(value)
    except (TypeError, ValueError):
        raise DatasetError(f"{where}: field {name!r} should be a number, got {value!r}") from None


def _extras(row: Mapping, known: Iterable[str]) -> dict[str, Any]:
    return {k: v for k, v in row.items()
            if k not in set(known) and not _missing(v) and not isinstance(v, (bytes, dict))}


def _named(root: Path, name: str, where: str) -> Path:
    """The file ``name`` under ``root`` that a benchmark's row names, refused (naming the row) when it leads out."""
    try:
        return inside(root / name)
    except OutsideRoots:
        raise DatasetError(f"{where}: its image path {OUTSIDE}") from None


_read_json = read_json  # the layouts' name for it


def _read_table(paths: Sequence[Path], required: Sequence[str]) -> list[dict]:
    """Rows of CSV, JSON (a list), JSONL or parquet files, after checking the required columns, all of them read
    within one budget (``explorer.eval.table_files``)."""
    budget = Budget(Path(paths[0]).name if len(paths) == 1 else f"{Path(paths[0]).parent.name}/*{paths[0].suffix}")
    rows: list[dict] = []
    for path in map(inside, paths):
        suffix = path.suffix.lower()
        try:
            table = frame(path, budget)
        except (DatasetError, cancel.Cancelled):
            raise
        except Exception as exc:  # pandas / pyarrow parse errors
            raise DatasetError(f"{path.name}: cannot be read as {suffix[1:]} ({exc})") from exc
        absent = [c for c in required if c not in table.columns]
        if absent and len(table):
            raise DatasetError(f"{path.name}: no column {absent[0]!r} (has {', '.join(map(str, table.columns))})")
        rows += table.to_dict("records")
    return rows


def _image_from_cell(value: Any, root: Path, source: str, name: str) -> ImageRef:
    """A table cell naming an image: a relative path, or a Hugging Face ``{"bytes", "path"}`` struct."""
    if isinstance(value, Mapping):
        if not _missing(value.get("bytes")):
            return ImageRef(source, data=bytes(value["bytes"]))
        if not _missing(value.get("path")):
            return ImageRef(source, path=_named(root, str(value["path"]), source))
        raise DatasetError(f"{source}: field {name!r} has neither 'bytes' nor 'path'")
    if isinstance(value, str):
        return ImageRef(source, path=_named(root, value, source))
    raise DatasetError(f"{source}: field {name!r} should be an image path or struct, got {type(value).__name__}")


def per_category(items: list[Item], limit: int | None) -> list[Item]:
    """The first ``limit`` items of each category, in file order."""
    if limit is None:
        return items
    seen: Counter = Counter()
    kept = []
    for it in items:
        if seen[it.category] < limit:
            kept.append(it)
            seen[it.category] += 1
    return kept


def _folder(path: Path, what: str) -> Path:
    if not path.is_dir():
        raise DatasetError(f"{what} {path} is not a folder")
    return path


def _inner(data: Path, marker: Callable[[Path], bool]) -> Path:
    """``data`` or its ``data/`` subfolder (a Hugging Face repository root), whichever holds the files; a ``data/``
    that leads outside the benchmark's folder is not looked into."""
    try:
        inner = inside(data / "data")
    except OutsideRoots:
        if (data / "data").is_symlink():
            log.warning("%s is a link leading outside %s: not looked into (--allow-outside follows it)",
                        data / "data", data)
        return data
    return inner if not marker(data) and marker(inner) else data


# ---------------------------------------------------------------- the benchmarks


def load_sugarcrepe(data: Path, images: Path | None = None, limit: int | None = None) -> list[Item]:
    """SugarCrepe: ``<data>/<category>.json`` = ``{idx: {filename, caption, negative_caption}}`` over COCO val2017."""
    data = _inner(Path(data), lambda p: any((p / f"{c}.json").is_file() for c in SUGARCREPE_CATEGORIES))
    present = [c for c in SUGARCREPE_CATEGORIES if (data / f"{c}.json").is_file()]
    if not present:
        raise DatasetError(f"no SugarCrepe category file in {data} (expected {', '.join(SUGARCREPE_CATEGORIES)}.json)")
    for c in SUGARCREPE_CATEGORIES:
        if c not in present:
            log.warning("SugarCrepe: %s.json not in %s; skipping that category", c, data)
    root = _folder(Path(images) if images else data / "val2017", "SugarCrepe image folder")
    items: list[Item] = []
    for cat in present:
        name = f"{cat}.json"
        table = _read_json(data / name)
        if not isinstance(table, dict):
            raise DatasetError(f"{name}: expected an object {{idx: item}}, got {type(table).__name__}")
        for idx, row in list(table.items())[:limit]:
            where = f"{name}: item {idx!r}"
            items.append(Item(
                cat, (ImageRef(where, path=_named(root, _text(row, "filename", where), where)),),
                (_text(row, "caption", where), _text(row, "negative_caption", where)), id=str(idx),
            ))
    return items


def load_winoground(data: Path, images: Path | None = None, limit: int | None = None) -> list[Item]:
    """Winoground: ``examples.jsonl`` + ``images/<name>.png``, or the Hugging Face parquet export."""
    data = Path(data)
    if data.is_file():
        files = [data]
    else:
        data = _inner(data, lambda p: (p / "examples.jsonl").is_file() or any(p.glob("*.parquet")))
        files = [data / "examples.jsonl"] if (data / "examples.jsonl").is_file() else sorted(data.glob("*.parquet"))
    if not files:
        raise DatasetError(f"no Winoground examples.jsonl or *.parquet in {data}")
    base = files[0].parent
    if files[0].suffix == ".jsonl":
        name = files[0].name
        rows = read_jsonl(files[0])
        root = _folder(Path(images) if images else base / "images", "Winoground image folder")
        pick = lambda row, k, where: ImageRef(  # noqa: E731
            where, path=_named(root, f"{_text(row, k, where)}.png", where))
    else:
        name = files[0].name if len(files) == 1 else f"{files[0].parent.name}/*.parquet"
        rows = _read_table(files, WINOGROUND_FIELDS)
        root = Path(images) if images else base
        pick = lambda row, k, where: _image_from_cell(_get(row, k, where), root, where, k)  # noqa: E731
    items = []
    for n, row in enumerate(rows):
        key = row.get("id", n) if isinstance(row, Mapping) else n
        where = f"{name}: item {key}"
        _get(row, "id", where)
        items.append(Item(
            _text(row, "tag", where), (pick(row, "image_0", where), pick(row, "image_1", where)),
            (_text(row, "caption_0", where), _text(row, "caption_1", where)), id=str(row["id"]),
            info=_extras(row, WINOGROUND_FIELDS),
        ))
    return per_category(items, limit)


def load_bivlc(data: Path, images: Path | None = None, limit: int | None = None) -> list[Item]:
    """BiVLC: a CSV / JSON / JSONL / parquet table of image, caption, negative_caption, negative_image, type."""
    data = Path(data)
    kinds = (".csv", ".jsonl", ".json", ".parquet")
    if data.is_file():
        files = [data]
    else:
        data = _inner(data, lambda p: any(f.suffix.lower() in kinds for f in p.glob("*")))
        files = sorted(f for f in data.glob("*") if f.is_file() and f.suffix.lower() in kinds)
        if len(files) > 1 and not all(f.suffix.lower() == ".parquet" for f in files):
            raise DatasetError(f"several BiVLC tables in {data} ({', '.join(f.name for f in files)}): pass one file")
    if not files:
        raise DatasetError(f"no BiVLC table (.csv, .jsonl, .json, .parquet) in {data}")
    root = Path(images) if images else files[0].parent
    items = []
    for n, row in enumerate(_read_table(files, BIVLC_FIELDS)):
        where = f"{files[0].name}: row {n}"
        refs = tuple(_image_from_cell(_get(row, k, where), root, where, k) for k in ("image", "negative_image"))
        items.append(Item(
            _text(row, "type", where), refs, (_text(row, "caption", where), _text(row, "negative_caption", where)),
            id=str(row.get("id", n)), info=_extras(row, BIVLC_FIELDS),
        ))
    return per_category(items, limit)


def _aro_kind(path: Path, rows: list) -> str:
    stem = path.stem.lower()
    for kind, key in (("VG-Relation", "relation"), ("VG-Attribution", "attribution")):
        if key in stem:
            return kind
    first = rows[0] if rows and isinstance(rows[0], Mapping) else {}
    if "relation_name" in first:
        return "VG-Relation"
    if "attributes" in first:
        return "VG-Attribution"
    raise DatasetError(f"{path.name}: cannot tell VG-Relation from VG-Attribution; use ARO's file names {ARO_FILES}")


def load_aro(data: Path, images: Path | None = None, limit: int | None = None) -> list[Item]:
    """ARO VG-Relation / VG-Attribution: JSON lists of image_path, bbox, true / false caption; crops to the box."""
    data = Path(data)
    files = [data] if data.is_file() else [data / f for f in ARO_FILES.values() if (data / f).is_file()]
    if not files:
        raise DatasetError(f"no ARO file in {data} (expected {' or '.join(ARO_FILES.values())})")
    folder = files[0].parent
    root = Path(images) if images else (folder / "images" if (folder / "images").is_dir() else folder)
    items: list[Item] = []
    for path in files:
        rows = _read_json(path)
        if not isinstance(rows, list):
            raise DatasetError(f"{path.name}: expected a list of items, got {type(rows).__name__}")
        kind = _aro_kind(path, rows)
        for n, row in enumerate(rows[:limit]):
            where = f"{path.name}: item {n}"
            box = tuple(_number(row, k, where) for k in ("bbox_x", "bbox_y", "bbox_w", "bbox_h"))
            path = _named(root, _text(row, "image_path", where), where)
            ref = ImageRef(where, path=path, box=box)  # type: ignore[arg-type]
            items.append(Item(
                kind, (ref,), (_text(row, "true_caption", where), _text(row, "false_caption", where)), id=str(n),
                info=_extras(row, ARO_FIELDS),
            ))
    return items
