"""A benchmark given by upload: a table as it is, or a .zip of the benchmark's folder unpacked within a bounded cost
(``explorer.eval.archives``)."""

from __future__ import annotations

import os
from pathlib import Path

from explorer.eval import archives
from explorer.eval.archives import NESTED, metadata
from explorer.eval.dataset_loaders import DatasetError

TABLES = (".csv", ".jsonl", ".ndjson", ".json", ".parquet")
PAIRS_TABLES = (".csv", ".jsonl", ".ndjson")


def _single_folder(folder: Path) -> Path:
    """The archive's one top folder when it holds nothing else (a zipped folder), else the archive's own."""
    inner = list(folder.iterdir())
    return inner[0] if len(inner) == 1 and inner[0].is_dir() else folder


def _pairs_file(folder: Path) -> Path:
    """The one own-pairs table in an unpacked archive; archives inside it are named as not opened."""
    files = [p for p in sorted(folder.rglob("*")) if p.is_file() and not metadata(p.relative_to(folder))]
    found = [p for p in files if p.suffix.lower() in PAIRS_TABLES]
    if len(found) != 1:
        names = ", ".join(str(p.relative_to(folder)) for p in found[:5]) or "none"
        nested = [str(p.relative_to(folder)) for p in files if p.suffix.lower() in NESTED]
        inside = (f"; it holds the archive{'s' if len(nested) > 1 else ''} {', '.join(nested[:5])}, not opened here: "
                  f"zip the folder itself" if nested else "")
        raise DatasetError(f"own pairs need one .csv or .jsonl file in the archive (found {names}{inside})")
    return found[0]


def without_server_paths(text: str, upload: str | Path | None = None) -> str:
    """A message about an upload with the server's folders taken out: a file of an unpacked archive named by its path
    in the archive, an uploaded table by its own name."""
    text = archives.STORE.unnamed(text)
    return text.replace(f"{Path(upload).parent}{os.sep}", "") if upload else text


def benchmark_path(upload: str | Path, benchmark: str) -> Path:
    """The file or folder a load reads for an uploaded file: a table as it is, a .zip unpacked (once per content)
    into a folder of its own; for own pairs, the one table inside it."""
    upload = Path(upload)
    suffix = upload.suffix.lower()
    if suffix in TABLES:
        return upload
    if suffix != ".zip":
        raise DatasetError(f"{upload.name}: upload a table ({', '.join(TABLES)}) or a .zip of the benchmark's folder")
    top = _single_folder(archives.STORE.folder(upload))
    try:
        return _pairs_file(top) if benchmark == "pairs" else top
    except DatasetError as exc:
        raise DatasetError(f"{upload.name}: {exc}") from None
