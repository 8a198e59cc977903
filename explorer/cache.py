"""One bounded least-recently-used cache, shared by the encoder and the methods' per-image work."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from typing import Callable, Generic, TypeVar

CACHE_SIZE = int(os.environ.get("EXPLORER_CACHE_SIZE", "512"))

V = TypeVar("V")


class LRUCache(Generic[V]):
    """At most ``size`` values by key; the least recently used goes first. Safe to share between threads."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._items: OrderedDict[str, V] = OrderedDict()
        self._lock = threading.Lock()

    def __contains__(self, key: str) -> bool:
        with self._lock:
            return key in self._items

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def get(self, key: str) -> V:
        with self._lock:
            self._items.move_to_end(key)
            return self._items[key]

    def put(self, key: str, value: V) -> V:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value

    def get_or_compute(self, key: str, compute: Callable[[], V]) -> V:
        """The cached value, else ``compute()`` (run outside the lock: two threads may both compute it once)."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        return self.put(key, compute())
