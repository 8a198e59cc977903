"""A benchmark given by upload: a table as it is, or a .zip of the benchmark's folder unpacked safely (no name that
leaves the folder, no link, bounded in files and bytes as they are written, whatever the archive declares)."""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import zipfile
from functools import cache
from pathlib import Path, PurePosixPath

from explorer.eval.dataset_loaders import DatasetError

MAX_FILES = 20_000
MAX_BYTES = 2 << 30  # unpacked, all files together
TABLES = (".csv", ".jsonl", ".ndjson", ".json", ".parquet")
_CHUNK = 1 << 20


@cache
def _unpacked_root() -> Path:
    return Path(tempfile.mkdtemp(prefix="explorer-uploads-"))


def _member_path(name: str) -> PurePosixPath:
    """An archive member's name as a relative path, or a ``DatasetError`` for one that would leave the folder."""
    path = PurePosixPath(name.replace("\\", "/"))
    if not path.parts or path.is_absolute() or ".." in path.parts or ":" in path.parts[0]:
        raise DatasetError(f"the archive names {name!r}, a path out of its folder: it is not unpacked")
    return path


def _unpack(archive: Path, into: Path) -> None:
    """Every member of ``archive`` written under ``into``, within ``MAX_FILES`` and ``MAX_BYTES``."""
    written = 0
    with zipfile.ZipFile(archive) as zf:
        members = zf.infolist()
        if len(members) > MAX_FILES:
            raise DatasetError(f"the archive holds {len(members):,} files, more than the {MAX_FILES:,} unpacked here")
        for info in members:
            target = into / _member_path(info.filename)
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, target.open("wb") as dst:  # a link is written as a file holding its target
                while block := src.read(_CHUNK):
                    written += len(block)
                    if written > MAX_BYTES:
                        raise DatasetError(f"the archive unpacks to more than {MAX_BYTES >> 20:,} MiB: "
                                           f"upload a smaller part")
                    dst.write(block)


def _single_folder(folder: Path) -> Path:
    """The archive's one top folder when it holds nothing else (a zipped folder), else the archive's own."""
    inner = [p for p in folder.iterdir() if p.name != "__MACOSX"]
    return inner[0] if len(inner) == 1 and inner[0].is_dir() else folder


def _pairs_file(folder: Path) -> Path:
    """The one own-pairs table in an unpacked archive."""
    found = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in (".csv", ".jsonl", ".ndjson"))
    if len(found) != 1:
        names = ", ".join(str(p.relative_to(folder)) for p in found[:5]) or "none"
        raise DatasetError(f"own pairs need one .csv or .jsonl file in the archive (found {names})")
    return found[0]


def benchmark_path(upload: str | Path, benchmark: str) -> Path:
    """The file or folder a load reads for an uploaded file: a table as it is, a .zip unpacked (once per content)
    into a folder of its own; for own pairs, the one table inside it."""
    upload = Path(upload)
    suffix = upload.suffix.lower()
    if suffix in TABLES:
        return upload
    if suffix != ".zip":
        raise DatasetError(f"{upload.name}: upload a table ({', '.join(TABLES)}) or a .zip of the benchmark's folder")
    digest = hashlib.sha256(upload.read_bytes()).hexdigest()[:24]
    folder = _unpacked_root() / digest
    if not folder.is_dir():
        partial = Path(tempfile.mkdtemp(dir=_unpacked_root()))
        try:
            _unpack(upload, partial)
        except (zipfile.BadZipFile, OSError) as exc:
            shutil.rmtree(partial, ignore_errors=True)
            raise DatasetError(f"{upload.name} is not a zip archive that can be read ({exc})") from None
        except DatasetError:
            shutil.rmtree(partial, ignore_errors=True)
            raise
        try:
            partial.rename(folder)
        except OSError:  # the same archive unpacked meanwhile by another request
            shutil.rmtree(partial, ignore_errors=True)
    top = _single_folder(folder)
    return _pairs_file(top) if benchmark == "pairs" else top
