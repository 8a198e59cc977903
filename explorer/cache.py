"""One bounded least-recently-used cache, shared by the encoder and the methods' per-image work."""

from __future__ import annotations

import os
from collections import OrderedDict
from typing import Callable, Generic, TypeVar

CACHE_SIZE = int(os.environ.get("EXPLORER_CACHE_SIZE", "512"))

V = TypeVar("V")


class LRUCache(Generic[V]):
    """At most ``size`` values by key; the least recently used goes first."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._items: OrderedDict[str, V] = OrderedDict()

    def __contains__(self, key: str) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: str) -> V:
        self._items.move_to_end(key)
        return self._items[key]

    def put(self, key: str, value: V) -> V:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)
        return value

    def get_or_compute(self, key: str, compute: Callable[[], V]) -> V:
        return self.get(key) if key in self._items else self.put(key, compute())
