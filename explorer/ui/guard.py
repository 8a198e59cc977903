"""Every handler answers: bad input, a failed load, a bug or a slow request become a message on the page."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import html
import logging
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from explorer import cancel, settings
from explorer.inputs import InputError
from explorer.model_errors import ModelUnavailable

log = logging.getLogger(__name__)

_MARKDOWN_SPECIALS = re.compile(r"([\\`*_\[\]!|~#])")  # emphasis, code, links, images, tables, headings


def plain(text: str) -> str:
    """User text made inert in markdown: no HTML tags, no emphasis, links or images, shown as typed."""
    return _MARKDOWN_SPECIALS.sub(r"\\\1", html.escape(str(text), quote=False))


def warn(message: str) -> str:
    """A message for the page's status line (escaped: messages may quote file names and captions)."""
    return f"**Cannot run:** {plain(message)}"


def _answer(on_error: Callable[[str], Any], name: str, exc: Exception) -> Any:
    """A failure as the page's message: the user's own mistakes as they are, a bug with its type."""
    if isinstance(exc, (InputError, ModelUnavailable)):
        return on_error(warn(str(exc)))
    log.error("%s failed", name, exc_info=exc)  # a bug: the log keeps the trace, the page says what happened
    return on_error(warn(f"Something went wrong ({type(exc).__name__}: {exc}); the server's log has the details. "
                         f"Your inputs are kept: change them and try again."))


@functools.cache
def _workers() -> ThreadPoolExecutor:
    """The threads that run time-limited handlers, all users together (the ``workers`` setting)."""
    return ThreadPoolExecutor(max_workers=settings.current().workers, thread_name_prefix="explorer-request")


def _retrieve(work: asyncio.Future) -> None:
    if not work.cancelled() and isinstance(work.exception(), cancel.Cancelled):
        log.info("stopped work of a request given up")


def guarded(on_error: Callable[[str], Any], time_limit: float | None = None,
            hint: str = "") -> Callable[[Callable], Callable]:
    """Wrap a handler so every failure returns ``on_error(message)`` instead of raising into gradio.

    With ``time_limit`` the handler becomes a coroutine that runs the work on a worker thread with its own
    cancellation token (``explorer.cancel``): the token is set when the request runs over the limit (the page gets a
    message ending in ``hint``) or is abandoned (gradio cancels the coroutine), and the work stops at its next
    ``cancel.check()``.
    """
    def wrap(fn: Callable) -> Callable:
        if time_limit is None:
            @functools.wraps(fn)  # gradio reads the wrapped signature (its inputs and the progress tracker)
            def handler(*args, **kwargs):
                try:
                    return fn(*args, **kwargs)
                except Exception as exc:
                    return _answer(on_error, fn.__name__, exc)
            return handler

        @functools.wraps(fn)
        async def limited(*args, **kwargs):
            token = threading.Event()
            context = contextvars.copy_context()  # gradio's progress tracker lives in a context variable
            context.run(cancel.bind, token)
            work = asyncio.wrap_future(_workers().submit(context.run, fn, *args, **kwargs))
            work.add_done_callback(_retrieve)  # work stopped after its answer was given ends quietly
            try:
                return await asyncio.wait_for(asyncio.shield(work), time_limit)
            except asyncio.TimeoutError:
                token.set()
                log.warning("%s took longer than %.0f s: stopped", fn.__name__, time_limit)
                return on_error(warn(f"This took longer than the server's limit of {time_limit:.0f} s per request "
                                     f"and was stopped (the server may be busy). Try again{hint}."))
            except asyncio.CancelledError:  # the user left or cancelled: the work stops at its next check
                token.set()
                log.info("%s abandoned: stopping it", fn.__name__)
                raise
            except Exception as exc:
                return _answer(on_error, fn.__name__, exc)
        return limited
    return wrap
