"""Every handler answers: bad input, a failed load, a bug or a slow request become a message on the page."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterator

import gradio as gr

from explorer.core import cancel, settings
from explorer.core.markdown import plain
from explorer.images.inputs import InputError
from explorer.models.model_errors import ModelUnavailable

log = logging.getLogger(__name__)


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


_RUNNING: dict[str, set[threading.Event]] = {}  # each open page's (session's) running work, by its token
_RUNNING_LOCK = threading.Lock()


def _session() -> str | None:
    """The session (one open page) of the request being handled, as gradio's event context holds it; None outside
    one (a test calling a handler, the CLI)."""
    from gradio.context import LocalContext  # what gradio's own handlers read (gr.Request's session_hash)

    request = LocalContext.request.get(None)
    return getattr(request, "session_hash", None)


@contextlib.contextmanager
def _running(token: threading.Event) -> Iterator[None]:
    """The token filed under its page's session while its work runs, so that closing the page sets it."""
    session = _session()
    if session is None:
        yield
        return
    with _RUNNING_LOCK:
        _RUNNING.setdefault(session, set()).add(token)
    try:
        yield
    finally:
        with _RUNNING_LOCK:
            tokens = _RUNNING.get(session, set())
            tokens.discard(token)
            if not tokens:
                _RUNNING.pop(session, None)


def abandon(session: str) -> int:
    """Stop the work running for a page that has gone (its tokens set): how many requests were stopped."""
    with _RUNNING_LOCK:
        tokens = list(_RUNNING.get(session, ()))
    for token in tokens:
        token.set()
    if tokens:
        log.info("a page was closed: stopping its %d running request(s)", len(tokens))
    return len(tokens)


def page_closed(request: gr.Request) -> None:
    """``demo.unload``'s handler: gradio calls it when a page's heartbeat connection drops (the tab closed, the
    browser gone), which a request already running is not told of (gradio cancels only the requests of a page that
    asks, and its queue merely stops sending to a closed page); its work stops at its next ``cancel.check()``. Only
    the page's own heartbeat counts: the handler called through the queue, where a caller may name any session,
    stops nothing."""
    path = getattr(getattr(request, "url", None), "path", "")
    if not path.endswith(f"/heartbeat/{request.session_hash}"):
        log.warning("page_closed asked for by a request, not by a page's heartbeat: nothing stopped")
        return
    abandon(request.session_hash)


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
                with _running(token):
                    return await asyncio.wait_for(asyncio.shield(work), time_limit)
            except cancel.Cancelled as exc:  # its page was closed meanwhile (its token set): the answer goes nowhere
                if not token.is_set():
                    return _answer(on_error, fn.__name__, exc)
                log.info("%s stopped: its page was closed", fn.__name__)
                return on_error(warn("Stopped: the page was closed."))
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
            except Exception as exc:
                return _answer(on_error, fn.__name__, exc)
        return limited
    return wrap
