"""Archives of a few KB whose tables hold millions of rows: a parquet file (its columns run-length encoded), an arrow
IPC stream (zstd-compressed record batches, as ``datasets.save_to_disk`` lays out VisMin) and a JSON Lines file,
each in the layout its benchmark's loader reads."""

from __future__ import annotations

import zipfile
from pathlib import Path

MILLIONS = 3_000_000  # rows of the parquet and the arrow file
JSONL_ROWS = 300_000  # rows of the JSON Lines file, within the archive's 1 MiB that no ratio check looks at
KEY = "idx,Text,Image,category\n0,T0_I0 > T1_I0 & T1_I1 > T0_I1,I0_T0 > I1_T0 & I1_T1 > I0_T1,object\n"


def _columns(rows: int):
    import pyarrow as pa

    def text(value: str):  # one word over and over: a dictionary of one, its indices all 0
        return pa.DictionaryArray.from_arrays(pa.array([0] * rows, pa.int8()), [value])

    return {"id": pa.array([0] * rows, pa.int64()), "text_0": text("a red cube"), "text_1": text("a blue cube"),
            "category": text("object")}


def parquet_zip(folder: Path) -> Path:
    """VisMin's hub layout: ``data/test-00000-of-00001.parquet`` of ``MILLIONS`` rows, and the authors' key."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table(_columns(MILLIONS))
    pq.write_table(table, folder / "test.parquet", compression="zstd", row_group_size=MILLIONS)
    return _zipped(folder / "parquet.zip", {"vismin-bench/data/test-00000-of-00001.parquet": folder / "test.parquet"})


def arrow_zip(folder: Path) -> Path:
    """VisMin as ``load_from_disk`` reads it: ``test/data-00000-of-00001.arrow``, batches of 500,000 rows."""
    import pyarrow as pa

    batch = pa.record_batch(_columns(500_000))
    options = pa.ipc.IpcWriteOptions(compression="zstd")
    with pa.OSFile(str(folder / "data.arrow"), "wb") as sink, pa.ipc.new_stream(sink, batch.schema, options=options) \
            as writer:
        for _ in range(MILLIONS // batch.num_rows):
            writer.write_batch(batch)
    return _zipped(folder / "arrow.zip", {"vismin-bench/test/data-00000-of-00001.arrow": folder / "data.arrow"})


def jsonl_zip(folder: Path) -> Path:
    """Own pairs as JSON Lines: ``JSONL_ROWS`` rows, each an empty object."""
    (folder / "pairs.jsonl").write_text("{}\n" * JSONL_ROWS)  # each row refused alone, were it read
    return _zipped(folder / "jsonl.zip", {"mine/pairs.jsonl": folder / "pairs.jsonl"})


def _zipped(archive: Path, members: dict[str, Path]) -> Path:
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for name, path in members.items():
            zf.write(path, name)
        if "vismin" in next(iter(members)):
            zf.writestr("vismin-bench/solutions/sim_solution.csv", KEY)
    return archive
