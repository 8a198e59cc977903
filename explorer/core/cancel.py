"""Cooperative cancellation: long loops ask, between steps, whether the request they serve was abandoned or ran over
its time limit, and stop there (Python cannot stop a thread from outside)."""

from __future__ import annotations

import contextvars
import threading


class Cancelled(Exception):
    """The request this work serves was abandoned or ran over its time limit."""


_TOKEN: contextvars.ContextVar[threading.Event | None] = contextvars.ContextVar("explorer_cancel", default=None)


def bind(token: threading.Event) -> None:
    """Make ``token`` the current context's: once it is set, ``check`` raises there."""
    _TOKEN.set(token)


def check() -> None:
    """Raise ``Cancelled`` when the current request was given up; a no-op outside a request (CLI, tests)."""
    token = _TOKEN.get()
    if token is not None and token.is_set():
        raise Cancelled("the request was abandoned or ran over its time limit")
