"""One bounded least-recently-used cache, shared by the encoder and the methods' per-image work."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, Generic, TypeVar

from explorer.core import settings

V = TypeVar("V")


class LRUCache(Generic[V]):
    """At most ``size`` values by key (None: the ``cache_size`` setting), and with ``weigh`` at most ``max_bytes`` of
    them; the least recently used goes first. Safe to share between threads."""

    def __init__(self, size: int | None = None, max_bytes: int | None = None,
                 weigh: Callable[[V], int] | None = None) -> None:
        if (max_bytes is None) != (weigh is None):
            raise ValueError("max_bytes and weigh go together")
        self._size = size
        self.max_bytes = max_bytes
        self._weigh = weigh
        self._items: OrderedDict[str, V] = OrderedDict()
        self._bytes: dict[str, int] = {}
        self._lock = threading.Lock()

    @property
    def size(self) -> int:
        """The most values kept."""
        return settings.current().cache_size if self._size is None else self._size

    @property
    def nbytes(self) -> int:
        """What the values weigh together (0 for a cache counted by entries alone)."""
        with self._lock:
            return sum(self._bytes.values())

    def __contains__(self, key: str) -> bool:
        with self._lock:
            return key in self._items

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes.clear()

    def get(self, key: str) -> V:
        with self._lock:
            self._items.move_to_end(key)
            return self._items[key]

    def put(self, key: str, value: V) -> V:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            if self._weigh is not None:
                self._bytes[key] = self._weigh(value)
            while len(self._items) > self.size or self._over_bytes():
                old, _ = self._items.popitem(last=False)
                self._bytes.pop(old, None)
        return value

    def _over_bytes(self) -> bool:
        """Over the byte budget with more than one value: a value larger than the whole budget stays alone."""
        return self.max_bytes is not None and len(self._items) > 1 and sum(self._bytes.values()) > self.max_bytes

    def get_or_compute(self, key: str, compute: Callable[[], V]) -> V:
        """The cached value, else ``compute()`` (run outside the lock: two threads may both compute it once)."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        return self.put(key, compute())
