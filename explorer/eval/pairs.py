"""Your own image-caption pairs as a benchmark (``--benchmark pairs --data FILE``): a CSV with a header row, or JSON
Lines, with the fields ``image``, ``caption_a``, ``caption_b`` and optional ``image_b``, ``category``. Image paths are
relative to the file. A row with one image is a choice (caption A is the right one, B its foil); with ``image_b`` it is
a swap (caption A belongs to image, B to image_b). A bad row is reported by its line and field, and the rest load."""

from __future__ import annotations

import logging
import warnings
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, UnidentifiedImageError

from explorer.core import cancel, settings
from explorer.core.cache import LRUCache
from explorer.core.data_roots import OUTSIDE, OutsideRoots, current_bases, inside
from explorer.core.items import Item
from explorer.eval.dataset_loaders import DatasetError, ImageRef, per_category
from explorer.eval.pairs_rows import RowError, control_character, found, rows
from explorer.images.inputs import InputError, clean_caption

log = logging.getLogger(__name__)

DEFAULT_CATEGORY = "pairs"  # a row's category when it names none
BAD_NAMED = 3  # bad rows a file with no good row names in its refusal
READS_KEPT, ROWS_KEPT = 4, 100_000  # files' reads kept (the last one whatever its rows): Browse's load and its
# rows left out read a file once


@dataclass(frozen=True)
class BadRow:
    """A row left out: where it is, the field at fault and what is wrong with it."""

    line: int
    field: str
    problem: str

    def __str__(self) -> str:
        return f"line {self.line}, field {self.field!r}: {self.problem}"


def _field_text(row: dict, name: str) -> str | None:
    """A field's text as the row gives it (None where it is absent or empty), refused when it is no text or holds a
    control character."""
    value = row.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise RowError(name, f"{found(value)}, not text")
    problem = control_character(value)
    if problem:
        raise RowError(name, problem)
    return value


class _Images:
    """The image files one read has checked, each once however many rows name it (its problem, or "")."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.checked: dict[Path, str] = {}

    def ref(self, row: dict, name: str, where: str) -> ImageRef:
        value = (_field_text(row, name) or "").strip()
        if not value:
            raise RowError(name, "empty: it needs an image path relative to the file")
        try:
            path = inside(self.root / value)
        except OutsideRoots:
            raise RowError(name, f"the path {OUTSIDE}") from None
        if path not in self.checked:
            cancel.check()
            self.checked[path] = _image_problem(path, value)
        if self.checked[path]:
            raise RowError(name, self.checked[path])
        return ImageRef(where, path=path)


def _image_problem(path: Path, value: str) -> str:
    """What makes the file a row names no image this app reads ("" for none): missing, no image, more pixels than it
    reads, cut short; found by its header and its chunks' checksums (no pixel decoded), not while scoring. Said with
    the row's own words for the file, never the server's path."""
    if not path.is_file():
        return f"no image file at {value!r} (a path relative to the pairs file)"
    limit = settings.current().max_pixels
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(path) as im:
                if im.width * im.height > limit:
                    return f"{path.name} is {im.width} x {im.height} pixels, more than the {limit:,} this app reads"
                im.verify()
    except Image.DecompressionBombError:
        return f"{path.name} has more pixels than the {limit:,} this app reads"
    except UnidentifiedImageError:
        return f"{path.name} is not an image PIL can read"
    except (OSError, SyntaxError, ValueError) as exc:
        return f"{path.name} is damaged or cut short ({exc})"
    return ""


def _captions(row: dict) -> tuple[str, str]:
    captions = []
    for name, which in (("caption_a", "A"), ("caption_b", "B")):
        try:
            captions.append(clean_caption(_field_text(row, name), which))
        except InputError as exc:
            raise RowError(name, str(exc)) from None
    if captions[0].lower() == captions[1].lower():
        raise RowError("caption_b", "the same as caption_a: a pair needs two different captions")
    return captions[0], captions[1]


def _item(row: dict, line: int, images: _Images, source: str) -> Item:
    where = f"{source}: line {line}"
    a, b = _captions(row)
    category = (_field_text(row, "category") or "").strip() or DEFAULT_CATEGORY
    image = images.ref(row, "image", where)
    if _field_text(row, "image_b") is not None:
        return Item(category, (image, images.ref(row, "image_b", where)), (a, b), id=f"line {line}")
    return Item(category, (image,), (a, b), id=f"line {line}")


def _kind(item: Item) -> str:
    return "two-image" if len(item.images) == 2 else "one-image"


def _read(path: Path) -> tuple[list[Item], list[BadRow]]:
    items: list[Item] = []
    bad: list[BadRow] = []
    images = _Images(path.parent)
    for line, row, why in rows(path):
        try:
            if why is not None:
                raise why
            item = _item(row, line, images, path.name)
        except RowError as exc:
            bad.append(BadRow(line, exc.field, str(exc)))
            continue
        if items and _kind(item) != _kind(items[0]):  # scores of one kind per file: group, or accuracy
            bad.append(BadRow(line, "image_b", f"a {_kind(item)} pair in a file of {_kind(items[0])} pairs (from "
                                               f"{items[0].id}): put each kind in a file of its own"))
            continue
        items.append(item)
    return items, bad


_read_before: LRUCache[tuple[tuple[Item, ...], tuple[BadRow, ...]]] = LRUCache(
    READS_KEPT, ROWS_KEPT, weigh=lambda read: len(read[0]) + len(read[1]))


def read_pairs(path: Path) -> tuple[list[Item], list[BadRow]]:
    """Every good row of the file as an item, and every bad one with its line and field. A file read before, as it
    is and under the same confinement, is not read again (a load and its rows left out read it once)."""
    path = Path(path)
    if not path.is_file():
        raise DatasetError(f"pairs: no file at {path}")
    stat = inside(path).stat()
    key = f"{path.resolve()}:{stat.st_size}:{stat.st_mtime_ns}:{current_bases()}"
    items, bad = _read_before.get_or_compute(key, lambda: tuple(map(tuple, _read(path))))
    return list(items), list(bad)


def load_pairs(data: Path, images: Path | None = None, limit: int | None = None) -> list[Item]:
    """The registry's loader: the good rows (``limit`` per category), each bad row logged by line and field."""
    if images is not None:
        raise DatasetError("pairs: image paths are relative to the pairs file; --images does not apply")
    items, bad = read_pairs(Path(data))
    for row in bad:
        log.warning("%s: skipped %s", Path(data).name, row)
    if not items:
        first = "; ".join(map(str, bad[:BAD_NAMED])) + ("; ..." if len(bad) > BAD_NAMED else "")
        raise DatasetError(f"{Path(data).name}: no usable row ({len(bad)} left out: {first})" if bad else
                           f"{Path(data).name}: no row below its header")
    return per_category(items, limit)
