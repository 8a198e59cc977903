"""Each open page (a gradio session) and what it leaves on the server's disk: its heartbeat connections, counted by
a middleware so that only a page's own heartbeat ends it (not one a request opens naming its session), and the files
written for it (its drawings, reports, items sent, slices and links, each kind in a folder of the server's temporary
folder, a subfolder a page) and the uploads its requests were handed, removed when its page closes (an upload another
open page was handed too, or one gradio keeps for every page, stays); all of them, and gradio's cache of this page's
files, when the server stops."""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import tempfile
import threading
import time
import weakref
from pathlib import Path
from typing import Any, Iterable

log = logging.getLogger(__name__)

_ROOTS: dict[str, Path] = {}
_UPLOADS: dict[str, set[str]] = {}  # each session's uploads (gradio's cached copies) its requests were handed
_BEATS: dict[str, dict[int, float]] = {}  # each session's open heartbeat connections: when each opened
_LOCK = threading.Lock()
HEARTBEAT = "/heartbeat/"
GRACE = 3.0  # seconds a page's files outlive its last heartbeat's drop (``end_unless_back``)
FRESH_S = 5.0  # an upload written this recently may be another page's same file, not yet handed to it: it stays
_APPS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # each page served here (its gradio Blocks): the
# files gradio cached for every page of it when it was built (the examples' pictures, the pad's canvases)


def current() -> str | None:
    """The session (one open page) of the request being handled, as gradio's event context holds it; None outside
    one (a test calling a handler, the CLI)."""
    from gradio.context import LocalContext  # what gradio's own handlers read (gr.Request's session_hash)

    return getattr(LocalContext.request.get(None), "session_hash", None)


def root(kind: str) -> Path:
    """The folder of ``kind``'s files, all pages', made on first use and removed when the server stops."""
    with _LOCK:
        if kind not in _ROOTS:
            _ROOTS[kind] = Path(tempfile.mkdtemp(prefix=f"explorer-{kind}-"))
        return _ROOTS[kind]


def private_cache() -> None:
    """gradio's cache of this server's uploads and files in a folder of its own, removed whole when the server stops,
    unless the operator names one (``GRADIO_TEMP_DIR``); called before gradio is imported."""
    if os.environ.get("GRADIO_TEMP_DIR") is None:
        os.environ.setdefault("GRADIO_TEMP_DIR", str(root("gradio")))


def _owns_cache() -> bool:
    """Whether gradio's cache is this process's own folder (``private_cache``): a folder the operator names may be
    shared with other servers, whose pages this one cannot see, so no upload is removed from it before the stop."""
    with _LOCK:
        own = _ROOTS.get("gradio")
    return own is not None and os.environ.get("GRADIO_TEMP_DIR") == str(own)


def folder(kind: str) -> Path:
    """The folder of ``kind``'s files for the page being served (its own subfolder; outside a page the root)."""
    session = current()
    if session is None:
        return root(kind)
    found = root(kind) / _subfolder(session)
    found.mkdir(exist_ok=True)
    return found


def _subfolder(session: str) -> str:
    """A page's subfolder's name: of its session, whatever text a request names it by."""
    return f"page-{abs(hash(session)):x}"


def serving(demo: Any) -> None:
    """Remember a page, once built: its uploads (gradio's ``upload_file_set``), among which a closed page's are told,
    and the files it keeps for every page (what its cache holds now)."""
    _APPS[demo] = {_resolved(f) for files in demo.temp_file_sets for f in files}


def handed(values: Iterable[Any]) -> None:
    """Remember the uploads among a request's inputs (paths in gradio's cache) as its page's, removed with it."""
    session = current()
    if session is None:
        return
    from gradio.utils import get_upload_folder

    cache = Path(get_upload_folder()).resolve()
    found = {v for v in values
             if isinstance(v, str) and Path(v).is_absolute() and Path(v).resolve().is_relative_to(cache)}
    if found:
        with _LOCK:
            _UPLOADS.setdefault(session, set()).update(found)


class Heartbeats:
    """ASGI middleware: each heartbeat connection filed under its session while it is open (its opening time in its
    scope), so that a dropped one is known from the page's own."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        path = scope.get("path", "") if scope.get("type") == "http" else ""
        if HEARTBEAT not in path:
            return await self.app(scope, receive, send)
        session, key = path.rsplit("/", 1)[-1], id(scope)
        scope["explorer_opened"] = time.monotonic()
        with _LOCK:
            _BEATS.setdefault(session, {})[key] = scope["explorer_opened"]
        try:
            await self.app(scope, receive, send)
        finally:
            with _LOCK:
                beats = _BEATS.get(session, {})
                beats.pop(key, None)
                if not beats:
                    _BEATS.pop(session, None)


def launch_options() -> dict[str, Any]:
    """``Blocks.launch``'s options that install the heartbeat count."""
    from starlette.middleware import Middleware

    return {"app_kwargs": {"middleware": [Middleware(Heartbeats)]}}


def heartbeats(session: str) -> int:
    """How many heartbeat connections naming ``session`` are open."""
    with _LOCK:
        return len(_BEATS.get(session, {}))


def outlives(session: str, dropped: dict | None, began: float) -> bool | None:
    """Whether work of ``session`` begun at ``began`` outlives the drop of the heartbeat connection whose scope is
    ``dropped``: that connection opened after it began, or another one opened by then is still open; None where no
    heartbeat is counted (the page launched without ``launch_options``)."""
    opened = (dropped or {}).get("explorer_opened")
    if opened is None:
        return None
    with _LOCK:
        beats = dict(_BEATS.get(session, {}))
    return opened > began or any(t <= began for key, t in beats.items() if key != id(dropped))


def end_unless_back(session: str) -> None:
    """Remove the files of a page whose last heartbeat dropped, ``GRACE`` seconds on, unless one of it is open again
    by then (a browser's event stream reconnects after a stall: the page is still there)."""
    def later() -> None:
        if heartbeats(session) == 0:
            end(session)

    timer = threading.Timer(GRACE, later)
    timer.daemon = True
    timer.start()


def end(session: str) -> None:
    """Remove the files of a page that has gone: its folders, and the uploads it was handed that no open page was
    handed too (gradio's cache is kept by content: two pages uploading one picture share its file)."""
    with _LOCK:
        roots = list(_ROOTS.values())
        mine = _UPLOADS.pop(session, set())
    for kind_root in roots:
        shutil.rmtree(kind_root / _subfolder(session), ignore_errors=True)
    _drop_uploads(mine)
    log.info("a page was closed: its files removed")


def _drop_uploads(files: set[str]) -> None:
    """Remove ``files`` that came through gradio's upload route, unless an open page was handed them: never a copy
    gradio keeps for every page (an example's picture: the same content lands on the same path); one written in the
    last ``FRESH_S`` seconds (maybe another page's upload of the same content, not yet handed to it) is looked at
    again then. Only where this process owns gradio's cache (``_owns_cache``)."""
    if not _owns_cache():
        return
    uploaded, kept = set(), set()
    for demo, built in list(_APPS.items()):
        uploaded |= {_resolved(f) for f in demo.upload_file_set}
        kept |= built
    with _LOCK:
        held = {_resolved(f) for page in _UPLOADS.values() for f in page}
    mine = {f for f in files if _resolved(f) in uploaded - kept - held}
    fresh = {f for f in mine if _age(f) < FRESH_S}
    _remove(mine - fresh)
    if fresh:
        timer = threading.Timer(FRESH_S, _drop_uploads, [fresh])
        timer.daemon = True
        timer.start()


def _resolved(name: str) -> str:
    return str(Path(name).resolve())


def _age(name: str) -> float:
    """Seconds since ``name`` was written (infinite once it is gone)."""
    try:
        return time.time() - os.stat(name).st_ctime
    except OSError:
        return float("inf")


def clear(demo: Any = None) -> None:
    """Remove every page's files (the server stops), with gradio's cache of ``demo``'s files."""
    with _LOCK:
        roots, uploads = list(_ROOTS.values()), set().union(*_UPLOADS.values())
        _ROOTS.clear()
        _UPLOADS.clear()
    for kind_root in roots:
        shutil.rmtree(kind_root, ignore_errors=True)
    _remove(uploads)
    if demo is not None:
        _remove({f for files in demo.temp_file_sets for f in files})


def _remove(files: Iterable[str]) -> None:
    """Files of gradio's cache removed, each with its folder where it leaves that empty (one a file's content)."""
    for name in files:
        path = Path(name)
        path.unlink(missing_ok=True)
        try:
            path.parent.rmdir()
        except OSError:  # not empty, or gone
            pass


atexit.register(clear)
