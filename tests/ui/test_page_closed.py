"""A closed page stops only its own work: ``page_closed`` acts when gradio calls it for a page's dropped heartbeat,
stops nothing when a request names a session through the queue, and, on the served page, a heartbeat connection
another client opens naming a page's session and drops stops none of that page's work; the page's own closing stops
it and removes the page's files."""

import contextlib
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
from gradio_client import Client, handle_file

from explorer import world
from explorer.core import cancel
from explorer.ui import browse_tab, guard, sessions
from explorer.ui.serving import Serving
from explorer.world.examples import examples
from tests.app_server import running_app
from tests.ui.test_pad import _pad_value
from tests.ui.test_work_ends import page_of_its_own, running_for

LOAD_S = 4.0  # a Browse load's length here, unless it is stopped
ITEMS = 12


def request(session: str, path: str) -> SimpleNamespace:
    """What gradio hands the handler: the session named, and the route the call came by."""
    return SimpleNamespace(session_hash=session, url=SimpleNamespace(path=path))


@pytest.fixture
def running(monkeypatch) -> threading.Event:
    """A request of the page "victim" at work."""
    token = threading.Event()
    monkeypatch.setattr(guard, "_RUNNING", {"victim": {token: time.monotonic()}})
    return token


def test_a_call_through_the_queue_stops_no_page(running):
    guard.page_closed(request("victim", "/gradio_api/queue/join"))
    guard.page_closed(request("victim", "/gradio_api/heartbeat/attacker"))  # another page's heartbeat
    assert not running.is_set()


def test_the_pages_own_heartbeat_stops_its_work(running):
    guard.page_closed(request("victim", "/gradio_api/heartbeat/victim"))
    assert running.is_set()


def slow_load(*args, **kwargs):
    """A Browse load of ``LOAD_S`` seconds that checks its cancel token as a reader does."""
    for _ in range(int(LOAD_S / 0.05)):
        cancel.check()
        time.sleep(0.05)
    return world.swap_items("id", "attribute", ITEMS)


@pytest.fixture(scope="module")
def url(embedded):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(browse_tab, "load_items", slow_load)
        with running_app(embedded, Serving(heavy_concurrency=4, light_concurrency=4, queue_size=16,
                                           time_limit_s=60.0)) as found:
            yield found


def heartbeat(client: Client, session: str) -> contextlib.ExitStack:
    """A heartbeat connection naming ``session``, open once its first line has come (closed with what it returns)."""
    held = contextlib.ExitStack()
    beat = held.enter_context(httpx.stream("GET", client.heartbeat_url.format(session_hash=session), timeout=30))
    held.lines = beat.iter_lines()  # kept: a line reader dropped closes the stream
    next(held.lines)
    return held


@pytest.mark.parametrize("own_heartbeat", [True, False])
def test_a_heartbeat_another_client_opens_and_drops_stops_nothing(url, own_heartbeat):
    """The page's work runs on to its answer though another client opened its session's heartbeat and dropped it,
    whether the page holds its own heartbeat open (a tab) or none (a script)."""
    victim = page_of_its_own(url)
    own = heartbeat(victim, victim.session_hash) if own_heartbeat else None
    try:
        job = victim.submit("world", "", 1, api_name="/browse_load")
        assert running_for(victim.session_hash)  # the load runs
        attacker = Client(url, verbose=False)
        heartbeat(attacker, victim.session_hash).close()  # opened naming the victim's page, and dropped
        said = job.result(timeout=LOAD_S + 30)[-1]
        assert said.startswith(f"Loaded {ITEMS} items"), said
    finally:
        if own is not None:
            own.close()


def test_the_pages_own_heartbeat_dropped_stops_its_work_at_once(url):
    victim = page_of_its_own(url)
    own = heartbeat(victim, victim.session_hash)
    job = victim.submit("world", "", 1, api_name="/browse_load")
    assert running_for(victim.session_hash)
    begun = time.monotonic()
    own.close()  # the tab closed
    said = job.result(timeout=LOAD_S + 30)[-1]
    assert "the page was closed" in said and time.monotonic() - begun < LOAD_S, said


def gone(path: Path, within: float) -> bool:
    deadline = time.monotonic() + within
    while path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return not path.exists()


def test_a_closed_pages_drawing_and_upload_are_removed_not_another_pages_or_an_examples(url, tmp_path):
    """A page draws on the pad and uploads a picture another open page uploaded too, and an example's picture; once
    its heartbeat drops, its drawing's folder goes at once, and its upload once no open page holds it (gradio's cache
    is kept by content: the two pages shared one file); the example's copy, which every page reads, stays."""
    victim, other = page_of_its_own(url), page_of_its_own(url)
    own, others = heartbeat(victim, victim.session_hash), heartbeat(other, other.session_hash)
    value, flat = _pad_value(tmp_path)
    victim.predict(value, None, api_name="/drawing")
    flat.save(tmp_path / "mine.png")
    example = next(e.path for e in examples() if e.path.name.startswith("world-"))
    for page in (victim, other):
        page.predict(handle_file(str(tmp_path / "mine.png")), api_name="/preview")
    victim.predict(handle_file(str(example)), api_name="/preview")
    drawings = sessions.root("drawings") / sessions._subfolder(victim.session_hash)
    uploads = {Path(f).name: Path(f) for f in sessions._UPLOADS[victim.session_hash]}
    assert set(uploads) == {"mine.png", example.name} and all(p.is_file() for p in uploads.values())
    assert any(drawings.glob("drawing-*.png"))
    assert uploads["mine.png"] in {Path(f) for f in sessions._UPLOADS[other.session_hash]}  # one file, two pages
    kept = set().union(*sessions._APPS.values())
    assert str(uploads[example.name].resolve()) in kept  # the same content as the example's copy: the same file
    own.close()  # the victim's tab closed
    assert gone(drawings, 10)
    time.sleep(sessions.GRACE + sessions.FRESH_S + 1)
    assert uploads["mine.png"].is_file() and uploads[example.name].is_file()  # the other page's; every page's
    others.close()  # the other tab closed: no page holds the upload
    assert gone(uploads["mine.png"], sessions.GRACE + sessions.FRESH_S + 5)
    assert uploads[example.name].is_file()
