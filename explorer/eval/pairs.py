"""Your own image-caption pairs as a benchmark (``--benchmark pairs --data FILE``): a CSV with a header row, or JSON
Lines, with the fields ``image``, ``caption_a``, ``caption_b`` and optional ``image_b``, ``category``. Image paths are
relative to the file. A row with one image is a choice (caption A is the right one, B its foil); with ``image_b`` it is
a swap (caption A belongs to image, B to image_b). A bad row is reported by its line and field, and the rest load."""

from __future__ import annotations

import csv
import json
import logging
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from PIL import Image, UnidentifiedImageError

from explorer.core import settings
from explorer.core.data_roots import OUTSIDE, OutsideRoots, inside
from explorer.eval.dataset_loaders import DatasetError, ImageRef, json_problem, per_category
from explorer.images.inputs import InputError, clean_caption
from explorer.core.items import Item

log = logging.getLogger(__name__)

REQUIRED = ("image", "caption_a", "caption_b")
OPTIONAL = ("image_b", "category")
DEFAULT_CATEGORY = "pairs"  # a row's category when it names none


@dataclass(frozen=True)
class BadRow:
    """A row left out: where it is, the field at fault and what is wrong with it."""

    line: int
    field: str
    problem: str

    def __str__(self) -> str:
        return f"line {self.line}, field {self.field!r}: {self.problem}"


class RowError(Exception):
    def __init__(self, field: str, problem: str) -> None:
        super().__init__(problem)
        self.field = field


def _rows(path: Path) -> Iterator[tuple[int, dict | None, str]]:
    """(line, row or None, why not) for each data row of a CSV or JSON Lines file."""
    if path.suffix.lower() == ".csv":
        with inside(path).open(newline="", encoding="utf-8-sig") as f:
            reader = csv.DictReader(f)
            missing = [name for name in REQUIRED if name not in (reader.fieldnames or [])]
            if missing:
                raise DatasetError(f"{path.name}: the header row lacks {', '.join(missing)} (it needs "
                                   f"{', '.join(REQUIRED)}; optional {', '.join(OPTIONAL)})")
            start = 2
            for row in reader:
                yield start, row, ""
                start = reader.line_num + 1
        return
    if path.suffix.lower() not in (".jsonl", ".ndjson"):
        raise DatasetError(f"{path.name}: own pairs are a .csv file with a header row or a .jsonl file")
    with inside(path).open(encoding="utf-8") as f:
        for line, text in enumerate(f, start=1):
            if not text.strip():
                continue
            try:
                row = json.loads(text)
            except json.JSONDecodeError as exc:
                yield line, None, f"not valid JSON ({json_problem(exc, line=False)})"
                continue
            yield (line, row, "") if isinstance(row, dict) else (line, None, "not a JSON object")


def _image(row: dict, name: str, root: Path, where: str) -> ImageRef:
    value = row.get(name)
    if not isinstance(value, str) or not value.strip():
        raise RowError(name, "empty: it needs an image path relative to the file")
    try:
        path = inside(root / value.strip())
    except OutsideRoots:
        raise RowError(name, f"the path {OUTSIDE}") from None
    if not path.is_file():
        raise RowError(name, f"no image file at {path}")
    _check_image(path, name)
    return ImageRef(where, path=path)


def _check_image(path: Path, name: str) -> None:
    """A file that is no image, has more pixels than the app reads or is cut short is the row's fault, found here by
    its header and its chunks' checksums (no pixel decoded), not while scoring."""
    limit = settings.current().max_pixels
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(path) as im:
                if im.width * im.height > limit:
                    raise RowError(name, f"{path.name} is {im.width} x {im.height} pixels, more than the {limit:,} "
                                         f"this app reads")
                im.verify()
    except Image.DecompressionBombError:
        raise RowError(name, f"{path.name} has more pixels than the {limit:,} this app reads") from None
    except UnidentifiedImageError:
        raise RowError(name, f"{path.name} is not an image PIL can read") from None
    except (OSError, SyntaxError, ValueError) as exc:
        raise RowError(name, f"{path.name} is damaged or cut short ({exc})") from None


def _captions(row: dict) -> tuple[str, str]:
    captions = []
    for name, which in (("caption_a", "A"), ("caption_b", "B")):
        value = row.get(name)
        if value is not None and not isinstance(value, str):
            raise RowError(name, f"not text (a {type(value).__name__})")
        try:
            captions.append(clean_caption(value, which))
        except InputError as exc:
            raise RowError(name, str(exc)) from None
    if captions[0].lower() == captions[1].lower():
        raise RowError("caption_b", "the same as caption_a: a pair needs two different captions")
    return captions[0], captions[1]


def _item(row: dict, line: int, root: Path, source: str) -> Item:
    where = f"{source}: line {line}"
    a, b = _captions(row)
    image = _image(row, "image", root, where)
    category = str(row.get("category") or "").strip() or DEFAULT_CATEGORY
    if row.get("image_b") not in (None, ""):
        return Item(category, (image, _image(row, "image_b", root, where)), (a, b), id=f"line {line}")
    return Item(category, (image,), (a, b), id=f"line {line}")


def _kind(item: Item) -> str:
    return "two-image" if len(item.images) == 2 else "one-image"


def read_pairs(path: Path) -> tuple[list[Item], list[BadRow]]:
    """Every good row of the file as an item, and every bad one with its line and field."""
    path = Path(path)
    if not path.is_file():
        raise DatasetError(f"pairs: no file at {path}")
    items: list[Item] = []
    bad: list[BadRow] = []
    for line, row, why in _rows(path):
        if row is None:
            bad.append(BadRow(line, "(row)", why))
            continue
        try:
            item = _item(row, line, path.parent, path.name)
        except RowError as exc:
            bad.append(BadRow(line, exc.field, str(exc)))
            continue
        if items and _kind(item) != _kind(items[0]):  # scores of one kind per file: group, or accuracy
            bad.append(BadRow(line, "image_b", f"a {_kind(item)} pair in a file of {_kind(items[0])} pairs (from "
                                               f"{items[0].id}): put each kind in a file of its own"))
            continue
        items.append(item)
    return items, bad


def load_pairs(data: Path, images: Path | None = None, limit: int | None = None) -> list[Item]:
    """The registry's loader: the good rows (``limit`` per category), each bad row logged by line and field."""
    if images is not None:
        raise DatasetError("pairs: image paths are relative to the pairs file; --images does not apply")
    items, bad = read_pairs(Path(data))
    for row in bad:
        log.warning("%s: skipped %s", Path(data).name, row)
    if not items:
        raise DatasetError(f"{Path(data).name}: no usable row ({len(bad)} skipped)")
    return per_category(items, limit)
