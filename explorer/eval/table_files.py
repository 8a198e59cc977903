"""Tables and lists read within a budget: the rows a benchmark's file may hold and the memory it may take once read
(the ``table_rows`` and ``table_mb`` settings), judged from the file's metadata (a parquet footer) or its size before
anything is materialised, and counted again while it is read, batch by batch, element by element, line by line, with
the request's cancel token checked at each step. A file past either limit is refused with a sentence that names the
limit and how to raise it on one's own server. Every benchmark reader (uploaded or local) reads through here."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, TypeVar

from explorer.core import cancel, settings
from explorer.core.data_roots import inside

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

T = TypeVar("T")
CELL_BYTES = 100  # a Python object per cell once read, with its share of the row's dict
BATCH_ROWS = 4096  # rows decoded at a time from a parquet or arrow file
_BLOCK = 1 << 20
_SEPARATORS = (b",", b":", b"[", b"{")  # every JSON value but the outermost follows one of them
_SPACE = re.compile(r"[ \t\n\r]*")
_EXPECTED = {"]": "Expecting value", "}": "Expecting property name enclosed in double quotes"}  # the decoder's words


class DatasetError(ValueError):
    """A benchmark file is missing or malformed; the message names the file and the field."""


def json_problem(exc: json.JSONDecodeError, line: bool = True) -> str:
    """What is wrong with a JSON text and where, whole (the decoder's own message stops at "at")."""
    where = f"line {exc.lineno}, column {exc.colno}" if line else f"column {exc.colno}"
    return f"{exc.msg.removesuffix(' at')} at {where}"


def _mib(n: float) -> str:
    return f"{n / (1 << 20):,.0f} MiB"


@dataclass
class Budget:
    """What the files of one read have taken so far: rows, and the memory they take once read (estimated)."""

    name: str
    rows: int = 0
    bytes: float = 0.0

    def ahead(self, rows: int, nbytes: float, exact: bool = True, unit: str = "rows") -> None:
        """Refuse a file whose metadata (``exact``: its ``rows``, counted in ``unit``) or size says it holds more than
        the budget left, unread."""
        cancel.check()
        limits = settings.current()
        if self.rows + rows > limits.table_rows:
            said = f"holds {rows:,} {unit}, more than" if exact else "holds more rows than"
            raise DatasetError(f"{self.name} {said} the {limits.table_rows:,} rows a benchmark's file may hold on this "
                               f"server: it was not read. On your own server, raise the limit with --table-rows or "
                               f"the EXPLORER_TABLE_ROWS environment variable")
        if self.bytes + nbytes > limits.table_mb * (1 << 20):
            raise DatasetError(f"{self.name} would take about {_mib(self.bytes + nbytes)} of memory once read, more "
                               f"than the {_mib(limits.table_mb * (1 << 20))} a benchmark's file may take on this "
                               f"server: it was not read. On your own server, raise the limit with --table-mb or "
                               f"the EXPLORER_TABLE_MB environment variable")

    def add(self, rows: int, nbytes: float) -> None:
        """Count what was just read, refused (the rest unread) once past the budget."""
        self.ahead(rows, nbytes, exact=False)
        self.rows += rows
        self.bytes += nbytes


def counted(values: Iterable[T], budget: Budget, cells: int = 1) -> Iterator[T]:
    """``values`` one at a time, each counted as a row of ``cells`` cells (the cancel token checked at each)."""
    for value in values:
        budget.add(1, cells * CELL_BYTES)
        yield value


def lines_ahead(path: Path, budget: Budget, header: int = 0) -> None:
    """Refuse a file of one row a line whose lines (but ``header`` of them) are more than the rows left, counted a
    block at a time before a row is parsed."""
    lines, last = 0, b"\n"
    with inside(path).open("rb") as f:
        while block := f.read(_BLOCK):
            cancel.check()
            lines, last = lines + block.count(b"\n"), block[-1:]
    budget.ahead(max(lines + (last != b"\n") - header, 0), 0, unit="lines")


def _text(path: Path, budget: Budget) -> str:
    """A text file read whole once its size allows (the bytes and their text, and a cell per JSON value at most)."""
    path = inside(path)
    if not path.is_file():
        raise DatasetError(f"{path.name}: file not found")
    size = path.stat().st_size
    budget.ahead(0, 2 * size)
    data = path.read_bytes()
    budget.ahead(0, 2 * size + CELL_BYTES * sum(data.count(s) for s in _SEPARATORS))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{path.name}: not UTF-8 text ({exc.reason})") from exc


def _json_items(text: str, budget: Budget) -> Any:
    """The outermost list or object of a JSON text built element by element, each counted as a row."""
    decoder = json.JSONDecoder()
    pos = _SPACE.match(text, 0).end()
    closer = {"[": "]", "{": "}"}.get(text[pos:pos + 1])
    if closer is None:
        return json.loads(text)
    found: Any = [] if closer == "]" else {}
    pos = _SPACE.match(text, pos + 1).end()
    while text[pos:pos + 1] != closer:
        if closer == "}":
            if text[pos:pos + 1] != '"':
                raise json.JSONDecodeError(_EXPECTED[closer], text, pos)
            key, pos = decoder.raw_decode(text, pos)
            pos = _SPACE.match(text, pos).end()
            if text[pos:pos + 1] != ":":
                raise json.JSONDecodeError("Expecting ':' delimiter", text, pos)
            pos = _SPACE.match(text, pos + 1).end()
        value, pos = decoder.raw_decode(text, pos)
        budget.add(1, 0)
        if closer == "]":
            found.append(value)
        else:
            found[key] = value
        pos = _SPACE.match(text, pos).end()
        if text[pos:pos + 1] == ",":  # another element follows
            pos = _SPACE.match(text, pos + 1).end()
            if text[pos:pos + 1] == closer:
                raise json.JSONDecodeError(_EXPECTED[closer], text, pos)
        elif text[pos:pos + 1] != closer:
            raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)
    pos = _SPACE.match(text, pos + 1).end()
    if pos != len(text):
        raise json.JSONDecodeError("Extra data", text, pos)
    return found


def read_json(path: Path, budget: Budget | None = None) -> Any:
    """A JSON file's value, its outermost list's or object's elements counted as rows while they are read."""
    budget = budget or Budget(Path(path).name)
    text = _text(path, budget)
    try:
        return _json_items(text, budget)
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{Path(path).name}: invalid JSON ({json_problem(exc)})") from exc
    except RecursionError:
        raise DatasetError(f"{Path(path).name}: nested too deeply to be read as JSON") from None


def read_jsonl(path: Path, budget: Budget | None = None) -> list[Any]:
    """A JSON Lines file's rows, each line counted as it is read."""
    budget = budget or Budget(Path(path).name)
    lines_ahead(path, budget)
    rows = []
    for n, line in enumerate(counted(_text(path, budget).splitlines(), budget), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise DatasetError(f"{path.name}: invalid JSON on line {n} ({json_problem(exc, False)})") from exc
    return rows


def _batches(batches: Iterable[pa.RecordBatch], budget: Budget) -> Iterator[pa.RecordBatch]:
    for batch in batches:
        budget.add(batch.num_rows, batch.nbytes + CELL_BYTES * batch.num_rows * batch.num_columns)
        yield batch


def parquet_table(path: Path, budget: Budget) -> pa.Table:
    """A parquet file's table, refused from its footer's rows and sizes before a page is decoded, then read batch by
    batch."""
    import pyarrow.parquet as pq

    with pq.ParquetFile(inside(path)) as f:
        meta = f.metadata
        unpacked = sum(meta.row_group(g).total_byte_size for g in range(meta.num_row_groups))
        budget.ahead(meta.num_rows, unpacked + CELL_BYTES * meta.num_rows * meta.num_columns)
        import pyarrow as pa

        return pa.Table.from_batches(list(_batches(f.iter_batches(BATCH_ROWS), budget)), schema=f.schema_arrow)


def arrow_rows(path: Path, budget: Budget) -> list[dict]:
    """An arrow IPC file's rows (the stream format ``datasets.save_to_disk`` writes, or the file format, whose footer
    counts its record batches), read batch by batch."""
    import pyarrow as pa

    with pa.memory_map(str(inside(path))) as source:
        if source.read(6) == b"ARROW1":
            reader = pa.ipc.open_file(source)
            batches = (reader.get_batch(i) for i in range(reader.num_record_batches))
        else:
            source.seek(0)
            batches = iter(pa.ipc.open_stream(source))
        rows: list[dict] = []
        for batch in _batches(batches, budget):
            rows += batch.to_pylist()
        return rows


def csv_frame(path: Path, budget: Budget) -> pd.DataFrame:
    """A CSV file's cells as text, read a chunk of rows at a time."""
    import pandas as pd

    path = inside(path)
    budget.ahead(0, 2 * path.stat().st_size)
    lines_ahead(path, budget, header=1)
    chunks = []
    with pd.read_csv(path, dtype=str, keep_default_na=False, chunksize=BATCH_ROWS) as reader:
        for chunk in reader:
            budget.add(len(chunk), CELL_BYTES * chunk.size)
            chunks.append(chunk)
    return pd.concat(chunks, ignore_index=True) if chunks else pd.DataFrame()


def frame(path: Path, budget: Budget) -> pd.DataFrame:
    """A table file (CSV, JSON list, JSON Lines or parquet) as a frame, read within ``budget``."""
    import pandas as pd

    suffix = path.suffix.lower()
    if suffix == ".parquet":
        return parquet_table(path, budget).to_pandas()
    if suffix == ".csv":
        return csv_frame(path, budget)
    data = read_jsonl(path, budget) if suffix == ".jsonl" else read_json(path, budget)
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise DatasetError(f"{path.name}: expected a list of objects, one per item")
    return pd.DataFrame(data)
