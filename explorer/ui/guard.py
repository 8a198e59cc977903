"""Every handler answers: bad input, a failed load, a bug or a slow request become a message on the page."""

from __future__ import annotations

import contextvars
import functools
import html
import logging
import os
import re
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, Callable

from explorer.encoders import ModelUnavailable
from explorer.inputs import InputError

log = logging.getLogger(__name__)

_WORKERS = ThreadPoolExecutor(max_workers=int(os.environ.get("EXPLORER_WORKERS", "8")),
                              thread_name_prefix="explorer-request")
_MARKDOWN_SPECIALS = re.compile(r"([\\`*_\[\]!|~#])")  # emphasis, code, links, images, tables, headings


def plain(text: str) -> str:
    """User text made inert in markdown: no HTML tags, no emphasis, links or images, shown as typed."""
    return _MARKDOWN_SPECIALS.sub(r"\\\1", html.escape(str(text), quote=False))


def warn(message: str) -> str:
    """A message for the page's status line (escaped: messages may quote file names and captions)."""
    return f"**Cannot run:** {plain(message)}"


def _within(seconds: float | None, fn: Callable, args: tuple, kwargs: dict) -> Any:
    if seconds is None:
        return fn(*args, **kwargs)
    context = contextvars.copy_context()  # gradio's progress tracker lives in a context variable
    future = _WORKERS.submit(context.run, fn, *args, **kwargs)
    return future.result(timeout=seconds)


def guarded(on_error: Callable[[str], Any], time_limit: float | None = None) -> Callable[[Callable], Callable]:
    """Wrap a handler so every failure returns ``on_error(message)`` instead of raising into gradio.

    With ``time_limit``, the handler runs on a worker thread and the page gets a message when it takes longer;
    the work itself finishes in the background (Python cannot stop a thread) and its result is dropped.
    """
    def wrap(fn: Callable) -> Callable:
        @functools.wraps(fn)  # gradio reads the wrapped signature (its inputs and the progress tracker)
        def handler(*args, **kwargs):
            try:
                return _within(time_limit, fn, args, kwargs)
            except (InputError, ModelUnavailable) as exc:
                return on_error(warn(str(exc)))
            except FutureTimeout:
                log.warning("%s took longer than %.0f s", fn.__name__, time_limit)
                return on_error(warn(f"This took longer than the server's limit of {time_limit:.0f} s per request "
                                     f"(the server may be busy); try again, or a smaller image."))
            except Exception as exc:  # a bug: the log keeps the trace, the page says what happened
                log.exception("%s failed", fn.__name__)
                return on_error(warn(f"Something went wrong ({type(exc).__name__}: {exc}); the server's log has "
                                     f"the details. Your inputs are kept: change them and try again."))
        return handler
    return wrap
