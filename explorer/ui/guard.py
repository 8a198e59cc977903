"""Every handler answers: bad input, a failed load, a bug or a slow request become a message on the page."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterator

import gradio as gr

from explorer.core import cancel, settings
from explorer.core.markdown import plain
from explorer.eval.table_files import DatasetError
from explorer.eval.uploads import without_server_paths
from explorer.images.inputs import InputError
from explorer.models.model_errors import ModelUnavailable
from explorer.ui import sessions

log = logging.getLogger(__name__)


def warn(message: str) -> str:
    """A message for the page's status line (escaped: messages may quote file names and captions)."""
    return f"**Cannot run:** {plain(message)}"


def _answer(on_error: Callable[[str], Any], name: str, exc: Exception) -> Any:
    """A failure as the page's message: the user's own mistakes as they are (no server folder named), a bug in a
    sentence (its type and trace go to the log)."""
    if isinstance(exc, (InputError, ModelUnavailable, DatasetError)):
        return on_error(warn(without_server_paths(str(exc))))
    log.error("%s failed", name, exc_info=exc)  # a bug: the log keeps the trace and its names, the page its words
    return on_error(warn("Something went wrong on the server; its log has the details. Your inputs are kept: change "
                         "them and try again."))


@functools.cache
def _workers() -> ThreadPoolExecutor:
    """The threads that run time-limited handlers, all users together (the ``workers`` setting)."""
    return ThreadPoolExecutor(max_workers=settings.current().workers, thread_name_prefix="explorer-request")


def _retrieve(work: asyncio.Future) -> None:
    if not work.cancelled() and isinstance(work.exception(), cancel.Cancelled):
        log.info("stopped work of a request given up")


_RUNNING: dict[str | None, dict[threading.Event, float]] = {}  # each open page's (session's) running work, by its
# token: when each began (None: work of no page)
_RUNNING_LOCK = threading.Lock()


@contextlib.contextmanager
def _running(token: threading.Event) -> Iterator[None]:
    """The token filed under its page's session while its work runs, so that closing the page sets it."""
    session = sessions.current()
    with _RUNNING_LOCK:
        _RUNNING.setdefault(session, {})[token] = time.monotonic()
    try:
        yield
    finally:
        with _RUNNING_LOCK:
            tokens = _RUNNING.get(session, {})
            tokens.pop(token, None)
            if not tokens:
                _RUNNING.pop(session, None)


def abandon(session: str | None, spared: Callable[[float], bool] = lambda began: False) -> int:
    """Stop the work running for a page that has gone (its tokens set), but the work ``spared`` says of when it began:
    how many requests were stopped."""
    with _RUNNING_LOCK:
        tokens = [token for token, began in _RUNNING.get(session, {}).items() if not spared(began)]
    for token in tokens:
        token.set()
    if tokens:
        log.info("a page was closed: stopping its %d running request(s)", len(tokens))
    return len(tokens)


def stop_all() -> None:
    """Stop every request's work (the server stops): each ends at its next ``cancel.check()``."""
    with _RUNNING_LOCK:
        running = list(_RUNNING)
    for session in running:
        abandon(session)


def page_closed(request: gr.Request) -> None:
    """``demo.unload``'s handler: gradio calls it when a heartbeat connection of a page drops (the tab closed, the
    browser gone), which a request already running is not told of (gradio cancels only the requests of a page that
    asks); its work stops at its next ``cancel.check()``, and its files are removed once no heartbeat of it is left
    (a few seconds on: one may reconnect).
    Only the page's own heartbeat counts: the handler called through the queue, where a caller may name any session,
    stops nothing, and a heartbeat opened after a request began, or dropped while one open when it began is still
    open (a connection another client opened naming the session), does not stop that request."""
    path = getattr(getattr(request, "url", None), "path", "")
    if not path.endswith(f"/heartbeat/{request.session_hash}"):
        log.warning("page_closed asked for by a request, not by a page's heartbeat: nothing stopped")
        return
    scope = getattr(getattr(request, "request", None), "scope", None)
    abandon(request.session_hash, lambda began: bool(sessions.outlives(request.session_hash, scope, began)))
    if not sessions.outlives(request.session_hash, scope, float("inf")):
        sessions.end_unless_back(request.session_hash)


def guarded(on_error: Callable[[str], Any], time_limit: float | None = None,
            hint: str | Callable[..., str] = "") -> Callable[[Callable], Callable]:
    """Wrap a handler so every failure returns ``on_error(message)`` instead of raising into gradio.

    With ``time_limit`` the handler becomes a coroutine that runs the work on a worker thread with its own
    cancellation token (``explorer.core.cancel``): the token is set when the request runs over the limit (the page gets a
    message ending in ``hint``, or in what ``hint`` says of the handler's arguments) or is abandoned (gradio cancels the coroutine, or the page is closed:
    ``page_closed``), and the work stops at its next ``cancel.check()``.
    """
    def wrap(fn: Callable) -> Callable:
        if time_limit is None:
            @functools.wraps(fn)  # gradio reads the wrapped signature (its inputs and the progress tracker)
            def handler(*args, **kwargs):
                sessions.handed(args)
                try:
                    return fn(*args, **kwargs)
                except Exception as exc:
                    return _answer(on_error, fn.__name__, exc)
            return handler

        def stopped(name: str) -> Any:
            log.info("%s stopped: its page was closed", name)
            return on_error(warn("Stopped: the page was closed."))

        @functools.wraps(fn)
        async def limited(*args, **kwargs):
            sessions.handed(args)
            token = threading.Event()
            context = contextvars.copy_context()  # gradio's progress tracker lives in a context variable
            context.run(cancel.bind, token)
            work = asyncio.wrap_future(_workers().submit(context.run, fn, *args, **kwargs))
            work.add_done_callback(_retrieve)  # work stopped after its answer was given ends quietly
            try:
                with _running(token):
                    return await asyncio.wait_for(asyncio.shield(work), time_limit)
            except cancel.Cancelled as exc:  # its page was closed meanwhile (its token set): the answer goes nowhere
                return _answer(on_error, fn.__name__, exc) if not token.is_set() else stopped(fn.__name__)
            except asyncio.TimeoutError:
                token.set()
                log.warning("%s took longer than %.0f s: stopped", fn.__name__, time_limit)
                return on_error(warn(f"This took longer than the server's limit of {time_limit:.0f} s per request "
                                     f"and was stopped (the server may be busy). Try again"
                                     f"{hint(*args, **kwargs) if callable(hint) else hint}."))
            except asyncio.CancelledError:  # the user left or cancelled: the work stops at its next check
                token.set()
                log.info("%s abandoned: stopping it", fn.__name__)
                raise
            except Exception as exc:  # its page closed meanwhile, its files removed under it: the page is told so
                return _answer(on_error, fn.__name__, exc) if not token.is_set() else stopped(fn.__name__)
        return limited
    return wrap
