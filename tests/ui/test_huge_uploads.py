"""Uploads of a few KB holding millions of rows (a parquet file, an arrow stream, a JSON Lines file), sent to the
Compare tab's pair panel and to Browse: refused before they are read whole, in a sentence naming the limit and how
to raise it, the server's memory rising by less than 200 MB and its CPU idle within a second of the answer; the same
with the page closed before the answer. The served page runs in this process: its memory is this process's."""

import threading
import time

import httpx
import pytest
from gradio_client import Client, handle_file

from tests.app_server import running_app
from tests.eval import huge_tables
from tests.ui.test_uploads import unescaped
from tests.ui.test_work_ends import IDLE_CPU, after_answer, page_of_its_own, still_running
from tests.ui.user_words import said_in_words  # noqa: F401 (the fixture, used by every test here)

RISE_MB = 200
LIMIT_SAID = "than the 100,000 rows a benchmark's file may hold on this server"
RAISE_SAID = "raise the limit with --table-rows or the EXPLORER_TABLE_ROWS environment variable"

pytestmark = pytest.mark.usefixtures("said_in_words")  # every message read for what a user cannot act on


def resident_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / (1 << 20)


class Peak:
    """This process's resident memory, sampled every 10 ms while the block runs: its rise over the start."""

    def __enter__(self):
        self.start = self.peak = resident_mb()
        self.done = threading.Event()
        self.sampler = threading.Thread(target=self._sample)
        self.sampler.start()
        return self

    def _sample(self):
        while not self.done.wait(0.01):
            self.peak = max(self.peak, resident_mb())

    def __exit__(self, *_):
        self.done.set()
        self.sampler.join()
        self.rise = self.peak - self.start


@pytest.fixture(scope="module")
def archives(tmp_path_factory):
    folder = tmp_path_factory.mktemp("huge")
    return {"parquet": huge_tables.parquet_zip(folder), "arrow": huge_tables.arrow_zip(folder),
            "jsonl": huge_tables.jsonl_zip(folder)}


@pytest.fixture(scope="module")
def url(embedded):
    with running_app(embedded) as found:
        yield found


REQUESTS = [  # (archive, what it is sent as, the page's request)
    ("parquet", "the pair panel", lambda c, f: c.submit("object", 0, f, "", api_name="/pair_two_by_two")),
    ("arrow", "the pair panel", lambda c, f: c.submit("object", 0, f, "", api_name="/pair_two_by_two")),
    ("parquet", "Browse's VisMin", lambda c, f: c.submit("vismin", "", 50, f, api_name="/browse_load")),
    ("arrow", "Browse's VisMin", lambda c, f: c.submit("vismin", "", 50, f, api_name="/browse_load")),
    ("jsonl", "Browse's own pairs", lambda c, f: c.submit("pairs", "", 50, f, api_name="/browse_load")),
    ("jsonl", "Browse's BiVLC", lambda c, f: c.submit("bivlc", "", 50, f, api_name="/browse_load")),
]


def said_of(result, sent_as: str) -> str:
    return unescaped(result[0] if sent_as == "the pair panel" else result[-1])


@pytest.mark.parametrize("layout, sent_as, send", REQUESTS)
def test_a_few_kb_of_millions_of_rows_is_refused_unread(url, archives, layout, sent_as, send):
    assert archives[layout].stat().st_size < 10_000
    client = Client(url, verbose=False)
    with Peak() as memory:
        said = said_of(send(client, handle_file(str(archives[layout]))).result(timeout=120), sent_as)
    assert LIMIT_SAID in said and RAISE_SAID in said, said
    assert memory.rise < RISE_MB, memory.rise
    used = after_answer()
    assert used < IDLE_CPU, (used, still_running())


@pytest.mark.parametrize("layout, sent_as, send", REQUESTS[::2])
def test_the_same_with_the_page_closed_before_the_answer(url, archives, layout, sent_as, send):
    client = page_of_its_own(url)  # its heartbeat held open here, as a tab does
    with Peak() as memory:
        with httpx.stream("GET", client.heartbeat_url.format(session_hash=client.session_hash), timeout=30) as beat:
            lines = beat.iter_lines()  # kept: a line reader dropped closes the stream
            next(lines)
            job = send(client, handle_file(str(archives[layout])))
        said = said_of(job.result(timeout=120), sent_as)  # the page closed: its refusal, or its stop
    assert LIMIT_SAID in said or "the page was closed" in said, said
    assert memory.rise < RISE_MB, memory.rise
    used = after_answer()
    assert used < IDLE_CPU, (used, still_running())


def test_the_two_requests_keep_their_inputs(url):
    """``/pair_two_by_two`` and ``/browse_load`` take the inputs scripts have called them with."""
    endpoints = Client(url, verbose=False).view_api(print_info=False, return_format="dict")["named_endpoints"]
    inputs = {name: [p["parameter_name"] for p in endpoints[name]["parameters"]]
              for name in ("/pair_two_by_two", "/browse_load")}
    assert inputs == {"/pair_two_by_two": ["kind", "index", "upload", "typed", "view"],  # the model: the page's own
                      "/browse_load": ["benchmark", "data", "limit", "upload"]}
