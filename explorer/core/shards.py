"""Per-item outcomes scored chunk by chunk, round-robin over ranks, kept in resumable per-rank JSONL files.

Chunk ``c`` of a task belongs to rank ``c % world_size``. Chunks are the batches a single process would
score, so every image is encoded in the same company and the numbers match it exactly. Each rank appends
one line per item (``{"task", "index", "key", "outcome"}``) after each chunk to ``rank-R-of-W.jsonl``, under a
first line holding the run's configuration; a rerun with the same configuration reads the chunks already there back
instead of scoring them again, where each item's ``key`` (a digest of its content) is the one stored: a chunk with a
line missing (torn by a kill) or an item whose content changed is scored again whole. ``resumed`` says how many
outcomes were read back and why the others were not.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from tqdm import tqdm

from explorer.core.distributed import SINGLE, Context, gather, total

log = logging.getLogger(__name__)

PACKAGE = Path(__file__).resolve().parents[1]  # explorer/: every module of the package

Progress = Callable[[Iterable], Iterable]
Scorer = Callable[[Sequence], list[dict]]


def chunks(items: Sequence, size: int) -> list[Sequence]:
    """Consecutive slices of at most ``size`` items."""
    return [items[i : i + size] for i in range(0, len(items), size)]


def _parse(line: str) -> dict | None:
    try:
        return json.loads(line)
    except ValueError:
        return None


@lru_cache(maxsize=None)
def code_fingerprint(root: Path = PACKAGE) -> str:
    """A digest of the Python sources under ``root`` (the explorer package): outcomes scored by other code, say
    before an update, are not read back into a rerun's report."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


class Shards:
    """This rank's share of an evaluation, and its file of outcomes when a folder is given."""

    def __init__(self, ctx: Context = SINGLE, folder: Path | None = None, config: dict | None = None) -> None:
        self.ctx = ctx
        self.path = Path(folder) / f"rank-{ctx.rank}-of-{ctx.world_size}.jsonl" if folder else None
        self.why: Counter[str] = Counter()  # this rank's items by why they were scored, or "read back"
        self.changed: str | None = None  # why the file's outcomes were all set aside: the run's settings changed
        self.done: dict[str, dict[int, tuple[str | None, Any]]] = self._load(config or {}) if self.path else {}
        self.scored = 0  # items in this rank's chunks, scored now or read back

    def _load(self, config: dict) -> dict[str, dict[int, tuple[str | None, Any]]]:
        """The outcomes already in this rank's file (each with its item's key), which is rewritten with them alone
        (no torn or repeated lines)."""
        header = json.loads(json.dumps({"config": config}))  # as it reads back: tuples become lists
        lines = self.path.read_text().splitlines() if self.path.is_file() else []
        if lines and (old := _parse(lines[0])) != header:
            before = (old or {}).get("config", {}) if isinstance(old, dict) else {}
            changed = sorted(k for k in {*before, *header["config"]} if before.get(k) != header["config"].get(k))
            self.changed = f"the run's {', '.join(changed) or 'settings'} changed"
            log.warning("%s holds another run's outcomes (%s): scoring afresh", self.path, self.changed)
            lines = []
        done: dict[str, dict[int, tuple[str | None, Any]]] = {}
        for r in filter(None, map(_parse, lines[1:])):
            done.setdefault(r["task"], {})[r["index"]] = (r.get("key"), r["outcome"])
        kept = [{"task": t, "index": i, "key": k, "outcome": o} for t, found in done.items()
                for i, (k, o) in found.items()]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text("".join(json.dumps(r) + "\n" for r in [header, *kept]))
        tmp.replace(self.path)
        if kept:
            log.info("%s: %d outcomes read back", self.path, len(kept))
        return done

    def _keep(self, task: str, indices: Sequence[int], outcomes: list[Any], keys: Sequence[str | None]) -> None:
        found = self.done.setdefault(task, {})
        found.update(zip(indices, zip(keys, outcomes)))
        if self.path:
            with self.path.open("a") as f:  # one write per chunk
                f.write("".join(json.dumps({"task": task, "index": i, "key": k, "outcome": o}) + "\n"
                                for i, k, o in zip(indices, keys, outcomes)))

    def _why(self, stored: tuple[str | None, Any] | None, key: str | None) -> str:
        """Why an item of a chunk scored again was not read back."""
        if stored is None:
            return self.changed or "not in the file"
        return "its content changed" if stored[0] != key else "scored again with its chunk"

    def outcomes(self, task: str, items: Sequence, score: Scorer, chunk: int, progress: Progress | None = None,
                 keys: Sequence[str] | None = None) -> list[Any]:
        """Every item's outcome, in item order, on every rank; this rank scores chunks rank, rank + W, ...

        An item's stored outcome is read back only where its ``keys`` entry (its content's digest) is the stored one.
        Without ``progress``, rank 0 shows a bar of the items done over all ranks.
        """
        w, done = self.ctx.world_size, self.done.get(task, {})
        key = (lambda i: keys[i]) if keys is not None else (lambda i: None)
        parts = chunks(range(len(items)), chunk)
        mine = parts[self.ctx.rank :: w]
        todo = [p for p in mine if any(i not in done or done[i][0] != key(i) for i in p)]
        self.why["read back"] += sum(map(len, mine)) - sum(map(len, todo))
        self.why.update(self._why(done.get(i), key(i)) for p in todo for i in p)
        initial = int(total(sum(map(len, mine)) - sum(map(len, todo)), self.ctx))
        bar = tqdm(total=len(items), initial=initial, desc=task, unit="item", leave=False,
                   disable=progress is not None or not self.ctx.is_main)
        for k in (progress or iter)(range(-(-len(parts) // w))):  # the same rounds on every rank
            part = todo[k] if k < len(todo) else range(0)
            if part:
                self._keep(task, part, score([items[i] for i in part]), [key(i) for i in part])
            bar.update(int(total(len(part), self.ctx)))
        bar.close()
        self.scored += sum(map(len, mine))
        found = self.done.get(task, {})
        merged = {i: o for share in gather({i: found[i][1] for p in mine for i in p}, self.ctx)
                  for i, o in share.items()}
        return [merged[i] for i in range(len(items))]

    def resumed(self) -> dict[str, int]:
        """Over all ranks: how many outcomes were read back (``"read back"``) and, for the others, why they were
        scored: not in the file, the run's settings changed (named), the item's content changed, or scored again
        with its chunk (chunks are scored whole, so the numbers match a single run's)."""
        merged: Counter[str] = Counter()
        for share in gather(dict(self.why), self.ctx):
            merged.update(share)
        return {"read back": merged.pop("read back", 0), **dict(sorted(merged.items()))}

    def report(self) -> list[dict[str, int]]:
        """``[{"rank", "items"}]``: how many items each rank scored (or read back)."""
        return [{"rank": r, "items": n} for r, n in enumerate(gather(self.scored, self.ctx))]
