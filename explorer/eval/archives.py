"""Uploaded .zip archives unpacked within a bounded cost: judged by their own directory before a byte is written (no
name that leaves the folder, no more files than ``MAX_FILES``, no member or archive that unpacks to more than
``MAX_RATIO`` times its packed size: a zip bomb), written with the request's cancel token checked at each block, and
kept within the ``uploads_mb`` disk budget, all uploads together: the least recently used folder is removed to make
room, and every one when the process ends. A macOS archive's ``__MACOSX`` folder and other systems' metadata files
are not unpacked."""

from __future__ import annotations

import atexit
import hashlib
import logging
import re
import shutil
import tempfile
import threading
import zipfile
from collections import OrderedDict
from pathlib import Path, PurePosixPath

from explorer.core import cancel, settings
from explorer.eval.dataset_loaders import DatasetError

log = logging.getLogger(__name__)

MAX_FILES = 20_000
MAX_RATIO = 200  # unpacked bytes per packed byte: text packs ~3-20x, images ~1x; a bomb of zeros ~1000x
RATIO_FLOOR = 1 << 20  # a member, or an archive, unpacking to less is small whatever its ratio
METADATA_FOLDERS = ("__MACOSX",)
METADATA_FILES = (".DS_Store", "Thumbs.db", "desktop.ini")  # and macOS's "._name" resource forks
NESTED = (".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar")  # archives inside one: not opened
_CHUNK = 1 << 20


def metadata(path: PurePosixPath) -> bool:
    """Whether a member is an operating system's bookkeeping, not the user's data."""
    return (any(part in METADATA_FOLDERS for part in path.parts) or path.name in METADATA_FILES
            or path.name.startswith("._"))


def _member_path(name: str) -> PurePosixPath:
    """An archive member's name as a relative path, or a ``DatasetError`` for one that would leave the folder."""
    path = PurePosixPath(name.replace("\\", "/"))
    if not path.parts or path.is_absolute() or ".." in path.parts or ":" in path.parts[0]:
        raise DatasetError(f"the archive names {name!r}, a path out of its folder: it is not unpacked")
    return path


def _mib(n: float) -> str:
    return f"{n / (1 << 20):,.0f} MiB" if n >= 1 << 20 else f"{n / 1024:,.0f} KiB"


def _plan(zf: zipfile.ZipFile, packed: int, budget: int) -> tuple[list[tuple[zipfile.ZipInfo, PurePosixPath]], int]:
    """The members to write with their paths, and the bytes they unpack to, from the archive's directory (the sizes
    it declares bound what ``zipfile`` writes: a member that unpacks to more fails its check); refused as a whole
    before anything is written."""
    members = [(info, _member_path(info.filename)) for info in zf.infolist()]
    members = [(info, path) for info, path in members if not metadata(path)]
    if len(members) > MAX_FILES:
        raise DatasetError(f"the archive holds {len(members):,} files, more than the {MAX_FILES:,} unpacked here")
    for info, _ in members:
        if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            raise DatasetError(f"the archive's {info.filename!r} unpacks to {_mib(info.file_size)} from "
                               f"{_mib(info.compress_size)}, {info.file_size // max(info.compress_size, 1):,} times "
                               f"its packed size (more than {MAX_RATIO}: a zip bomb): nothing was unpacked")
    total = sum(info.file_size for info, _ in members)
    if total > RATIO_FLOOR and total > MAX_RATIO * max(packed, 1):
        raise DatasetError(f"the archive unpacks to {_mib(total)} from {_mib(packed)}, {total // max(packed, 1):,} "
                           f"times its size (more than {MAX_RATIO}: a zip bomb): nothing was unpacked")
    if total > budget:
        raise DatasetError(f"the archive unpacks to {_mib(total)}, more than the {_mib(budget)} this server keeps "
                           f"for unpacked uploads: upload a smaller part")
    return members, total


def _write(zf: zipfile.ZipFile, members: list[tuple[zipfile.ZipInfo, PurePosixPath]], into: Path) -> None:
    """Every member under ``into``, a block at a time with the cancel token checked (a link is written as a file
    holding its target's name)."""
    for info, path in members:
        target = into / path
        try:
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, target.open("xb") as dst:
                while block := src.read(_CHUNK):
                    cancel.check()
                    dst.write(block)
        except OSError as exc:
            raise DatasetError(f"the archive's {info.filename!r} cannot be unpacked ({exc.strerror or exc}): it "
                               f"clashes with another member of the same name") from None


def digest(upload: Path) -> str:
    """The upload's content as a short name (the same archive is unpacked once)."""
    found = hashlib.sha256()
    with upload.open("rb") as f:
        while block := f.read(_CHUNK):
            cancel.check()
            found.update(block)
    return found.hexdigest()[:24]


class UnpackedStore:
    """The folders uploads are unpacked into, by content, within a disk budget; least recently used removed first."""

    def __init__(self) -> None:
        self._root: Path | None = None
        self._sizes: OrderedDict[str, int] = OrderedDict()  # by digest, the least recently used first
        self._busy: dict[str, threading.Event] = {}  # the digests being unpacked, each set once it is done
        self._lock = threading.Lock()

    @property
    def root(self) -> Path:
        if self._root is None:
            self._root = Path(tempfile.mkdtemp(prefix="explorer-uploads-"))
            atexit.register(self.clear)
        return self._root

    def used(self) -> int:
        """Bytes the unpacked folders take, as their archives declare them (those being written included)."""
        with self._lock:
            return sum(self._sizes.values())

    def folder(self, upload: Path) -> Path:
        """The folder ``upload`` is unpacked in, unpacked now unless it was before; while another request unpacks
        the same archive, this one waits for it (its own cancel token checked), and no other request waits."""
        name = digest(upload)
        while True:
            with self._lock:
                busy = self._busy.get(name)
                if busy is None and name in self._sizes and (self.root / name).is_dir():
                    self._sizes.move_to_end(name)
                    return self.root / name
                if busy is None:
                    self._sizes.pop(name, None)  # never unpacked, or gone from the disk since
                    self._busy[name] = threading.Event()
                    break
            while not busy.wait(0.1):
                cancel.check()
        try:
            return self._unpack(upload, name)
        finally:
            with self._lock:
                self._busy.pop(name).set()

    def _unpack(self, upload: Path, name: str) -> Path:
        budget = int(settings.current().uploads_mb * (1 << 20))
        try:
            with zipfile.ZipFile(upload) as zf:
                members, total = _plan(zf, upload.stat().st_size, budget)
                self._make_room(name, total, budget)
                partial = Path(tempfile.mkdtemp(dir=self.root))
                try:
                    _write(zf, members, partial)
                    partial.rename(self.root / name)
                except BaseException:
                    shutil.rmtree(partial, ignore_errors=True)
                    with self._lock:
                        self._sizes.pop(name, None)
                    raise
        except (zipfile.BadZipFile, EOFError, OSError) as exc:
            raise DatasetError(f"{upload.name} is not a zip archive that can be read "
                               f"({getattr(exc, 'strerror', None) or exc})") from None
        except DatasetError as exc:
            raise DatasetError(f"{upload.name}: {exc}") from None
        return self.root / name

    def _make_room(self, name: str, total: int, budget: int) -> None:
        """Room for ``total`` bytes, kept for ``name`` before a byte is written: the least recently used folders
        removed (not those being written), or refused while others' uploads being unpacked hold the room."""
        with self._lock:
            for old in [n for n in self._sizes if n not in self._busy]:
                if sum(self._sizes.values()) + total <= budget:
                    break
                size = self._sizes.pop(old)
                shutil.rmtree(self.root / old, ignore_errors=True)
                log.info("removed an unpacked upload (%s) to keep within the disk budget", _mib(size))
            if sum(self._sizes.values()) + total > budget:
                raise DatasetError(f"the archive unpacks to {_mib(total)}, and the server's room for unpacked "
                                   f"uploads ({_mib(budget)}) is taken by others being unpacked: try again shortly")
            self._sizes[name] = total

    def unnamed(self, text: str) -> str:
        """``text`` with this store's folders taken out: a file unpacked here named by its path in its archive."""
        if self._root is None:
            return text
        return re.sub(re.escape(str(self._root)) + r"/[^/\s]+/", "", text)

    def clear(self) -> None:
        """Remove every unpacked folder and the root (the process ends)."""
        with self._lock:
            if self._root is not None:
                shutil.rmtree(self._root, ignore_errors=True)
            self._sizes.clear()
            self._root = None


STORE = UnpackedStore()
