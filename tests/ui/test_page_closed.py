"""A closed page stops only its own work: ``page_closed`` acts when gradio calls it for a page's dropped heartbeat,
and stops nothing when a request names a session through the queue (any caller may name any session there)."""

import threading
from types import SimpleNamespace

import pytest

from explorer.ui import guard


def request(session: str, path: str) -> SimpleNamespace:
    """What gradio hands the handler: the session named, and the route the call came by."""
    return SimpleNamespace(session_hash=session, url=SimpleNamespace(path=path))


@pytest.fixture
def running(monkeypatch) -> threading.Event:
    """A request of the page "victim" at work."""
    token = threading.Event()
    monkeypatch.setattr(guard, "_RUNNING", {"victim": {token}})
    return token


def test_a_call_through_the_queue_stops_no_page(running):
    guard.page_closed(request("victim", "/gradio_api/queue/join"))
    guard.page_closed(request("victim", "/gradio_api/heartbeat/attacker"))  # another page's heartbeat
    assert not running.is_set()


def test_the_pages_own_heartbeat_stops_its_work(running):
    guard.page_closed(request("victim", "/gradio_api/heartbeat/victim"))
    assert running.is_set()
