"""Start the real page in this process on a free loopback port (for the app and browser tests)."""

from __future__ import annotations

import socket
from contextlib import contextmanager
from typing import Sequence

from explorer.engine import Engine
from explorer.ui import sessions
from explorer.ui.app import build_app
from explorer.ui.serving import Serving


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launched(demo, **options) -> str:
    """``demo`` served on a free loopback port, its URL. gradio's own check that the page answers gives up after one
    HEAD request that takes over 3 s, which a loaded machine sometimes does: the launch is then tried again."""
    for attempt in range(3):
        try:
            _, url, _ = demo.launch(server_name="127.0.0.1", server_port=free_port(), prevent_thread_lock=True,
                                    quiet=True, share=False, **options)
            return url
        except ValueError as exc:
            if "localhost is not accessible" not in str(exc) or attempt == 2:
                raise
            demo.close()
    raise AssertionError("unreachable")


@contextmanager
def running_app(encoder, serving: Serving | None = None, methods: Sequence[str] | None = None):
    """The page on ``encoder`` with ``methods`` (None: the page's own), served until the block ends."""
    demo = build_app(Engine(encoder) if methods is None else Engine(encoder, methods), serving)
    demo.queue()
    url = launched(demo, **sessions.launch_options())
    try:
        yield url
    finally:
        demo.close()
