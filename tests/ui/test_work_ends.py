"""Work ends with its answer: a heavy request that answers with the time limit's message, or whose page is closed,
stops using the server's cores within a second or two (its next ``cancel.check()``), measured as the CPU time this
process (the test and the served page) takes after the answer."""

import os
import sys
import threading
import time
import traceback
import uuid
from contextlib import contextmanager

import httpx
import numpy as np
import pytest
from gradio_client import Client, handle_file
from PIL import Image

from explorer import world
from explorer.engine import Engine
from explorer.ui import browse_tab, guard, sessions
from explorer.ui.app import build_app
from explorer.ui.serving import Serving
from tests.app_server import launched

LIMIT_S = 1.0  # every heavy request of this server runs over it
SETTLE_S, WINDOW_S = 1.0, 1.5  # the work's next check comes within the first; the CPU is measured over the second
PATIENT_LIMIT_S, CLOSED_WITHIN_S = 60.0, 15.0  # a closed page's request answers long before its limit
IDLE_CPU = 0.3  # CPU seconds over the window: an idle server takes ~0.1 (its heartbeats, the test's polling)


def cpu_seconds(over: float) -> float:
    """The CPU time this process takes in ``over`` seconds of wall time."""
    start = time.process_time()
    time.sleep(over)
    return time.process_time() - start


def still_running() -> str:
    """Where the request threads are, for a failure's message: the loop that does not check."""
    names = {t.ident: t.name for t in threading.enumerate()}
    return "\n".join(f"{names[tid]}: " + " <- ".join(f"{f.name} ({os.path.basename(f.filename)}:{f.lineno})"
                                                     for f in traceback.extract_stack(frame)[::-1][:8])
                     for tid, frame in sys._current_frames().items()
                     if names.get(tid, "").startswith("explorer-request"))


def page_of_its_own(url: str) -> Client:
    """A client whose requests name a session no heartbeat keeps open, as a tab's would once the test holds its
    heartbeat: the client's own heartbeat connected first, on the session it started with (it stays there)."""
    client = Client(url, verbose=False)
    deadline = time.monotonic() + 30
    while not sessions.heartbeats(client.session_hash) and time.monotonic() < deadline:
        time.sleep(0.01)
    client.session_hash = str(uuid.uuid4())
    return client


def running_for(session: str, within: float = 30.0) -> bool:
    """Whether work of ``session`` is running within ``within`` seconds: a busy machine may take seconds to upload
    and start it, and a page closed before its request begins is gradio's to drop (its queue stream closes with the
    tab; here the client keeps that stream), not the work's to stop."""
    deadline = time.monotonic() + within
    while not guard._RUNNING.get(session) and time.monotonic() < deadline:
        time.sleep(0.01)
    return bool(guard._RUNNING.get(session))


def after_answer() -> float:
    time.sleep(SETTLE_S)
    return cpu_seconds(WINDOW_S)


@contextmanager
def serving(encoder, limit_s: float):
    """The page with ``limit_s`` per heavy request; SGI reads finer crops (stride 0.2: ~420 on a photo, 4x the
    page's), so an analysis takes a few seconds of the image tower, as a hub model's does. Browse loads 640 world items
    of one split and kind, made beforehand (all twelve kinds take longer than the limit to make)."""
    engine = Engine(encoder, method_options={"sgi": {"stride": 0.2}})
    demo = build_app(engine, Serving(heavy_concurrency=2, light_concurrency=4, queue_size=16, time_limit_s=limit_s))
    items = world.swap_items("id", "attribute", 640)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(browse_tab, "load_items", lambda *args, **kwargs: items)
        url = launched(demo, **sessions.launch_options())
        try:
            yield url
        finally:
            demo.close()


@pytest.fixture(scope="module")
def url(embedded):
    """Every heavy request of this page runs over its one-second limit."""
    with serving(embedded, LIMIT_S) as found:
        yield found


@pytest.fixture(scope="module")
def photo(tmp_path_factory):
    path = tmp_path_factory.mktemp("photo") / "noise.png"
    Image.fromarray(np.random.default_rng(0).integers(0, 256, (512, 512, 3), dtype=np.uint8)).save(path)
    return path


def test_each_heavy_request_stops_with_its_time_limit_message(url, photo):
    """Browse's overview and wrong-only filter (640 world items), an analysis and the binding tab, one after the
    other: each answers at the limit, and within a second its work no longer runs."""
    client = Client(url, verbose=False)
    assert "Loaded 640 items" in client.predict("world", "", 1, api_name="/browse_load")[-1]
    requests = {
        "overview": lambda: client.predict(api_name="/overview")[-1],
        "filter": lambda: client.predict("all", True, api_name="/browse_filter")[-1],
        "analysis": lambda: client.predict(handle_file(str(photo)), "a red square and a blue circle",
                                           "a blue square and a red circle", api_name="/analyze")[0],
        "binding": lambda: client.predict(api_name="/binding")[-1],
    }
    for name, request in requests.items():
        said = request()
        assert "took longer than the server's limit" in said, (name, said)
        used = after_answer()
        assert used < IDLE_CPU, (name, used, still_running())


def test_a_closed_page_stops_its_request(embedded, photo):
    """A page closed while its request runs (its heartbeat connection drops, as when a tab closes): gradio calls the
    page's unload, which stops its work long before the limit would (a page of its own, whose limit of a minute
    cannot answer first, however busy the machine)."""
    with serving(embedded, PATIENT_LIMIT_S) as url:
        client = page_of_its_own(url)  # its heartbeat held open here, as a tab does
        with httpx.stream("GET", client.heartbeat_url.format(session_hash=client.session_hash), timeout=30) as beat:
            lines = beat.iter_lines()  # kept: a line reader dropped closes the stream
            next(lines)  # the page is open
            job = client.submit(handle_file(str(photo)), "a red square", "a blue circle", api_name="/analyze")
            assert running_for(client.session_hash), "the analysis never began"
        # the tab closed
        said = job.result(timeout=CLOSED_WITHIN_S)[0]
        assert "the page was closed" in said, said
        assert cpu_seconds(WINDOW_S) < IDLE_CPU, still_running()
