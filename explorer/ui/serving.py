"""How one server shares itself between many users: the queue, its concurrency per kind of event."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from explorer.core.data_roots import DataAccess
from explorer.core.settings import Settings


@dataclass(frozen=True)
class Serving:
    """Queue settings, as the page's ``Settings`` give them (its flags and environment variables; see the README)."""

    heavy_concurrency: int  # analyzes, loads at once
    light_concurrency: int  # previews, swaps, drawing
    queue_size: int  # requests waiting before "busy"
    time_limit_s: float  # a heavy request answers by then
    data: DataAccess = DataAccess.page(())  # the server files a page user may have read: none but uploads

    @classmethod
    def of(cls, settings: Settings) -> Serving:
        return cls(settings.concurrency, settings.light_concurrency, settings.queue_size, settings.time_limit,
                   DataAccess.page(settings.data_root))

    @property
    def heavy(self) -> dict[str, Any]:
        """Event options for model work: one shared limit, so a crowd of analyzes queues instead of thrashing."""
        return {"concurrency_limit": self.heavy_concurrency, "concurrency_id": "heavy"}

    @property
    def light(self) -> dict[str, Any]:
        """Event options for quick work: its own limit, so it never waits behind analyzes."""
        return {"concurrency_limit": self.light_concurrency, "concurrency_id": "light"}
