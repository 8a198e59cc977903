"""How one server shares itself between many users: the queue, its concurrency per kind of event."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Serving:
    """Queue settings; flags of ``app.py`` and environment variables set them (see the README)."""

    heavy_concurrency: int = int(os.environ.get("EXPLORER_CONCURRENCY", "2"))  # analyses, loads at once
    light_concurrency: int = int(os.environ.get("EXPLORER_LIGHT_CONCURRENCY", "8"))  # previews, swaps, drawing
    queue_size: int = int(os.environ.get("EXPLORER_QUEUE_SIZE", "64"))  # requests waiting before "busy"
    time_limit_s: float = float(os.environ.get("EXPLORER_TIME_LIMIT", "120"))  # a heavy request answers by then

    @property
    def heavy(self) -> dict[str, Any]:
        """Event options for model work: one shared limit, so a crowd of analyses queues instead of thrashing."""
        return {"concurrency_limit": self.heavy_concurrency, "concurrency_id": "heavy"}

    @property
    def light(self) -> dict[str, Any]:
        """Event options for quick work: its own limit, so it never waits behind analyses."""
        return {"concurrency_limit": self.light_concurrency, "concurrency_id": "light"}
