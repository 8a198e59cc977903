"""The rows of an own-pairs file, each judged alone: a row is one line, read in bounded bytes and decoded on its own,
so a line that is not UTF-8, too long, badly quoted or with a field too many is named by its line and the next line
is read as it is. A CSV's header must name each column once and only the known ones; a JSON Lines row is one object
whose every field is checked for its type."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any, BinaryIO, Iterator

from explorer.core import cancel
from explorer.core.data_roots import inside
from explorer.eval.table_files import Budget, DatasetError, counted, json_problem, lines_ahead

REQUIRED = ("image", "caption_a", "caption_b")
OPTIONAL = ("image_b", "category")
COLUMNS = f"{', '.join(REQUIRED)}; optional {', '.join(OPTIONAL)}"
MAX_ROW_BYTES = 1 << 20  # one row, all its fields together: a longer line is named, not read
_SKIP_CHUNK = 1 << 20
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")  # Unicode's control characters (Cc) but the tab

csv.field_size_limit(max(csv.field_size_limit(), MAX_ROW_BYTES))  # any field of a row within the row's limit


class RowError(Exception):
    """What is wrong with one row, and the field at fault ("(row)" for the row as a whole)."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(problem)
        self.field = field


Row = tuple[int, dict[str, Any] | None, RowError | None]  # (line, fields or None, why not)


def _lines(f: BinaryIO) -> Iterator[tuple[int, bytes | None]]:
    """(line number, its bytes without the line end, or None for a line over ``MAX_ROW_BYTES``), checking the
    request's cancel token at each line."""
    number = 0
    while raw := f.readline(MAX_ROW_BYTES + 1):
        cancel.check()
        number += 1
        if len(raw) > MAX_ROW_BYTES and not raw.endswith(b"\n"):
            while (more := f.readline(_SKIP_CHUNK)) and not more.endswith(b"\n"):
                cancel.check()
            yield number, None
            continue
        yield number, raw.rstrip(b"\r\n")


def _text(raw: bytes | None, number: int) -> str:
    """A line's bytes as text, or a ``RowError`` saying why not (too long, not UTF-8)."""
    if raw is None:
        raise RowError("(row)", f"longer than {MAX_ROW_BYTES:,} bytes, more than a row may hold (a caption holds at "
                                f"most a thousand characters): it is not read")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        near = raw[max(exc.start - 12, 0):exc.start + 12].decode("cp1252", errors="replace")
        raise RowError("(row)", f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at byte {exc.start + 1}, in "
                                f"{near!r} as Windows-1252 reads it): save the file as UTF-8 (in a spreadsheet: CSV "
                                f"UTF-8)") from None
    return text.removeprefix("\ufeff") if number == 1 else text


def control_character(text: str) -> str:
    """Where ``text`` holds a control character (a NUL, a bell, an escape...), in words; "" where it holds none."""
    found = _CONTROL.search(text)
    if found is None:
        return ""
    return f"holds a control character (U+{ord(found.group()):04X}) at character {found.start() + 1}: a field is " \
           f"plain text"


def _csv_fields(text: str) -> list[str]:
    try:
        return next(csv.reader([text], strict=True), [])
    except csv.Error as exc:
        if "end of data" in str(exc):
            raise RowError("(row)", "a quote opens a field and the line ends before it closes: a quoted field "
                                    "ends with \" on its own line") from None
        raise RowError("(row)", f"not a CSV row ({exc}): a field holding a comma or a quote goes in double "
                                f"quotes, each quote inside it doubled") from None


def _header(raw: bytes | None, number: int, name: str) -> list[str]:
    """The header's column names, refused by name when one is unknown, repeated or a required one is missing."""
    if raw is not None and raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise DatasetError(f"{name} is saved as UTF-16: save it as UTF-8 (in a spreadsheet: CSV UTF-8)")
    try:
        columns = [c.strip() for c in _csv_fields(_text(raw, number))]
    except RowError as exc:
        raise DatasetError(f"{name}: the header row (line {number}): {exc}") from None
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise DatasetError(f"{name}: the header row lacks {', '.join(missing)} (it needs {COLUMNS})")
    for i, column in enumerate(columns):
        if column not in REQUIRED + OPTIONAL:
            said = f"names {column!r}" if column else "has an unnamed column"
            raise DatasetError(f"{name}: the header row {said} (column {i + 1}), not a column of own pairs "
                               f"({COLUMNS}): rename or remove it")
        if columns.index(column) != i:
            raise DatasetError(f"{name}: the header row names {column!r} twice (columns {columns.index(column) + 1} "
                               f"and {i + 1}): which one to read is not clear, so keep one")
    return columns


def _csv_rows(f: BinaryIO, name: str) -> Iterator[Row]:
    header: list[str] | None = None
    for number, raw in _lines(f):
        if header is None:
            if raw is None or raw.strip():
                header = _header(raw, number, name)
            continue
        try:
            text = _text(raw, number)
            if not text.strip():
                continue
            fields = _csv_fields(text)
            if [c.strip() for c in fields] == header:
                raise RowError("(row)", "a repeat of the header row: a file has one header row, on line 1")
            if len(fields) > len(header):
                raise RowError("(row)", f"{len(fields)} fields, more than the header's {len(header)} columns: a "
                                        f"field holding a comma goes in double quotes")
            absent = [c for c in header[len(fields):] if c in REQUIRED]
            if absent:
                raise RowError("(row)", f"{len(fields)} fields, fewer than the header's {len(header)} columns: no "
                                        f"{', '.join(absent)}")
        except RowError as exc:
            yield number, None, exc
            continue
        yield number, dict(zip(header, fields)), None
    if header is None:
        raise DatasetError(f"{name}: the file is empty: it needs a header row ({COLUMNS}) and a row per pair")


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refused when it names a field twice (the decoder would keep the last in silence)."""
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise RowError(key, "named twice in the row: which one to read is not clear, so keep one")
        found[key] = value
    return found


def _jsonl_rows(f: BinaryIO) -> Iterator[Row]:
    for number, raw in _lines(f):
        try:
            text = _text(raw, number)
            if not text.strip():
                continue
            try:
                row = json.loads(text, object_pairs_hook=_object)
            except json.JSONDecodeError as exc:
                raise RowError("(row)", f"not valid JSON ({json_problem(exc, line=False)})") from None
            if not isinstance(row, dict):
                raise RowError("(row)", f"{found(row)}, not a JSON object with the fields {COLUMNS}")
            for key in row:
                if key not in REQUIRED + OPTIONAL:
                    raise RowError(key, f"not a field of own pairs ({COLUMNS}): rename or remove it")
        except RowError as exc:
            yield number, None, exc
            continue
        yield number, row, None


def found(value: Any) -> str:
    """What a JSON value is, in words, with a glimpse of it: 'a list (["ok.png"])', 'a number (3)'."""
    kinds = {list: "a list", dict: "an object", bool: "true or false", int: "a number", float: "a number",
             str: "text", type(None): "null"}
    glimpse = json.dumps(value, ensure_ascii=False)
    return f"{kinds.get(type(value), type(value).__name__)} ({glimpse[:40]}{'...' if len(glimpse) > 40 else ''})"


def rows(path: Path) -> Iterator[Row]:
    """(line, fields or None, why not) for each non-empty data row of a CSV or JSON Lines file."""
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".jsonl", ".ndjson"):
        raise DatasetError(f"{path.name}: own pairs are a .csv file with a header row or a .jsonl file")
    try:
        with inside(path).open("rb") as f:
            budget = Budget(path.name)
            lines_ahead(path, budget, header=int(suffix == ".csv"))
            found = _csv_rows(f, path.name) if suffix == ".csv" else _jsonl_rows(f)
            yield from counted(found, budget, len(REQUIRED + OPTIONAL))
    except OSError as exc:  # unreadable, or a folder given the name of a table: said without the server's path
        raise DatasetError(f"{path.name} cannot be read ({exc.strerror or type(exc).__name__})") from None
