"""Which server files a benchmark may read.

The page reads a typed path only inside the folders its operator names (``--data-root``; none by default), and takes
files by upload otherwise. Every file a loader reads and every image a benchmark's file names must stay inside the
benchmark's own folder or its data root: an absolute path, ``..`` or a symlink out is refused by line, in words that
name nothing outside (no listing, no header, no existence). The CLI reads any data path its user gives, and follows
the paths a file names out of its folder only with ``--allow-outside``.
"""

from __future__ import annotations

import contextvars
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

OUTSIDE = "leads outside the benchmark's folder, which is not read (absolute paths, '..' and links out are refused)"


class OutsideRoots(ValueError):
    """A path leads outside the folders this run may read; the message names nothing of where it leads."""


@dataclass(frozen=True)
class DataAccess:
    """What one load may read: ``roots`` (resolved folders) a typed data path must lie in when ``typed_anywhere``
    is off (the page), and whether paths a file names may leave its folder (``outside``: the CLI's flag)."""

    roots: tuple[Path, ...] = ()
    typed_anywhere: bool = True
    outside: bool = False

    @classmethod
    def page(cls, roots: Sequence[str | Path]) -> DataAccess:
        """The page's: typed paths only inside ``roots`` (none: no typed path at all), named paths confined."""
        return cls(tuple(Path(r).expanduser().resolve() for r in roots), typed_anywhere=False)

    def typed(self, text: str) -> Path:
        """The data path a user typed, as this access reads it: inside a root unless ``typed_anywhere``; relative to
        the first root where it is relative. Refused in words that say nothing of the path."""
        path = Path(text)
        if self.typed_anywhere:
            return path
        if not self.roots:
            raise OutsideRoots("this page reads no folder of the server: upload the benchmark's file, or a .zip of "
                               "its folder (the server's operator can name folders to read with --data-root)")
        found = (path if path.is_absolute() else self.roots[0] / path).resolve()
        if not any(found.is_relative_to(root) for root in self.roots):
            raise OutsideRoots(f"not inside this page's data folders ({', '.join(map(str, self.roots))}): give a "
                               f"path inside one of them, or upload the file")
        return found

    def bases(self, data: Path, images: Path | None = None) -> tuple[Path, ...]:
        """The folders the files of the benchmark at ``data`` may lie in: its own folder, the root holding it, and
        an image folder given apart (``--images``)."""
        folder = data if data.is_dir() else data.parent
        found = [folder.resolve()] + [r for r in self.roots if folder.resolve().is_relative_to(r)]
        return tuple(found + ([images.resolve()] if images is not None else []))


_BASES: contextvars.ContextVar[tuple[Path, ...] | None] = contextvars.ContextVar("explorer_data_bases", default=None)


@contextmanager
def confined(bases: tuple[Path, ...] | None) -> Iterator[None]:
    """Within the block, ``inside`` holds every path to ``bases`` (None: any path, the CLI's ``--allow-outside``)."""
    token = _BASES.set(bases)
    try:
        yield
    finally:
        _BASES.reset(token)


def current_bases() -> tuple[Path, ...] | None:
    """The folders ``inside`` holds paths to here (None: any path)."""
    return _BASES.get()


def inside(path: Path) -> Path:
    """``path`` when it resolves (links followed) inside the current bases, else ``OutsideRoots``; any path outside
    a ``confined`` block, or in one with bases None."""
    bases = _BASES.get()
    if bases is None or any(Path(path).resolve().is_relative_to(b) for b in bases):
        return Path(path)
    raise OutsideRoots(OUTSIDE)
