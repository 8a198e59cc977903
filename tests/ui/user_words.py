"""Every message the page's upload, pair-panel and refusal tests get back is read for what a user cannot act on: an
object's address, a Python class name, a traceback, a server path (one check over all of them: ``said_in_words``, a
fixture each of those modules uses for all its tests)."""

import re
import tempfile
from pathlib import Path

import pytest
from gradio_client.client import Job

ROOT = Path(__file__).resolve().parents[2]
NOT_WORDS = {
    "an object's address": re.compile(r"0x[0-9a-fA-F]{6,}|<[\w.]+ object"),
    "a Python class name": re.compile(r"\b\w+(Error|Exception)\b|\b_io\.|Traceback"),
    "a server path": re.compile("|".join(re.escape(p) for p in {tempfile.gettempdir() + "/", str(ROOT)})
                                + r"|explorer-(uploads|gradio|reports|drawings)-"),
}


def not_in_words(text: str) -> list[str]:
    """What in a message a user cannot act on, by kind: [] for a message in the user's words."""
    return [kind for kind, found in NOT_WORDS.items() if found.search(text)]


def messages(result) -> list[str]:
    """The sentences among a request's outputs (a file's path is not one: it has no space)."""
    values = result if isinstance(result, (tuple, list)) else [result]
    return [v for v in values if isinstance(v, str) and " " in v]


@pytest.fixture
def said_in_words(monkeypatch):
    """Every message a request of the test answers with, checked when the test ends."""
    said: list[str] = []
    result = Job.result

    def reading(job, *args, **kwargs):
        found = result(job, *args, **kwargs)
        said.extend(messages(found))
        return found

    monkeypatch.setattr(Job, "result", reading)
    yield said
    assert not [(text, kinds) for text in said if (kinds := not_in_words(text))]
