"""Benchmark files read within the settings' budget: a file of millions of rows refused from its metadata or its
first batch, a JSON list read element by element as the decoder would read it whole (the same values, the same
messages), every reader stopped by its request's cancel token, and the refusal naming the limit and how to raise it."""

import contextvars
import json
import threading
import zipfile
from dataclasses import replace

import pytest

from explorer.core import cancel, settings
from explorer.eval.benchmark_registry import load_items
from explorer.eval.dataset_loaders import DatasetError
from explorer.eval.table_files import Budget, frame, read_json, read_jsonl
from tests.eval import huge_tables

ROWS_SAID = "rows a benchmark's file may hold on this server: it was not read. On your own server, raise the limit " \
            "with --table-rows or the EXPLORER_TABLE_ROWS environment variable"


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory):
    """The three archives of millions of rows, unpacked."""
    folder = tmp_path_factory.mktemp("huge")
    found = {}
    for make in (huge_tables.parquet_zip, huge_tables.arrow_zip, huge_tables.jsonl_zip):
        archive = make(folder)
        assert archive.stat().st_size < 10_000
        zipfile.ZipFile(archive).extractall(folder / archive.stem)
        found[archive.stem] = folder / archive.stem
    return found


@pytest.mark.parametrize("layout, benchmark, inner, said", [
    ("parquet", "vismin", "vismin-bench", f"holds {huge_tables.MILLIONS:,} rows, more than the 100,000 {ROWS_SAID}"),
    ("arrow", "vismin", "vismin-bench", f"holds more rows than the 100,000 {ROWS_SAID}"),
    ("jsonl", "pairs", "mine/pairs.jsonl", f"holds {huge_tables.JSONL_ROWS:,} lines, more than the 100,000 "
                                           f"{ROWS_SAID}"),
    ("jsonl", "bivlc", "mine/pairs.jsonl", f"holds {huge_tables.JSONL_ROWS:,} lines, more than the 100,000 "
                                           f"{ROWS_SAID}"),
])
def test_a_file_of_millions_of_rows_is_refused_naming_the_limit(unpacked, layout, benchmark, inner, said):
    with pytest.raises(DatasetError, match="^.*$") as refused:
        load_items(benchmark, unpacked[layout] / inner)
    assert said in str(refused.value), refused.value


def test_the_limits_are_the_settings(unpacked, monkeypatch):
    """Raised on one's own server, the same rows are read (the parquet's 3 million: past a budget of 4 million)."""
    monkeypatch.setattr(settings, "_current", replace(settings.current(), table_rows=2_000_000))
    with pytest.raises(DatasetError, match="more than the 2,000,000 rows"):
        load_items("vismin", unpacked["parquet"] / "vismin-bench")
    monkeypatch.setattr(settings, "_current", replace(settings.current(), table_rows=300_000, table_mb=1.0))
    with pytest.raises(DatasetError, match=r"would take about \d+ MiB of memory once read, more than the 1 MiB a "
                                           r"benchmark's file may take on this server: it was not read. On your own "
                                           r"server, raise the limit with --table-mb or the EXPLORER_TABLE_MB"):
        read_jsonl(unpacked["jsonl"] / "mine/pairs.jsonl")


JSON_TEXTS = ['[1, 2, {"a": [1, 2]}]', ' {"a": 1,\n "b": {"c": 2}} ', "[]", "{}", '"text"', "[1,]", "[1 2]",
              '{"a" 1}', "{1: 2}", "[1] x", "", "[", '{"a": 1,}', '[{"x": 1},\n {"y": [}]', '{"a": 1, "a": 2}']


@pytest.mark.parametrize("text", JSON_TEXTS)
def test_json_read_element_by_element_is_the_decoders_value_or_message(tmp_path, text):
    path = tmp_path / "t.json"
    path.write_text(text)
    try:
        expected = json.loads(text)
    except json.JSONDecodeError as exc:
        with pytest.raises(DatasetError) as refused:
            read_json(path)
        assert f"({exc.msg} at line {exc.lineno}, column {exc.colno})" in str(refused.value), refused.value
    else:
        assert read_json(path) == expected


def test_a_json_list_past_the_budget_is_refused_as_it_is_read(tmp_path, monkeypatch):
    monkeypatch.setattr(settings, "_current", replace(settings.current(), table_rows=10))
    (tmp_path / "list.json").write_text(json.dumps([{"a": i} for i in range(11)]))
    with pytest.raises(DatasetError, match="list.json holds more rows than the 10 rows"):
        read_json(tmp_path / "list.json")
    (tmp_path / "ten.json").write_text(json.dumps({str(i): {"a": i} for i in range(10)}))
    assert len(read_json(tmp_path / "ten.json")) == 10


@pytest.mark.parametrize("name, text", [
    ("list.json", json.dumps([{"a": i} for i in range(50)])),
    ("rows.jsonl", "\n".join(json.dumps({"a": i}) for i in range(50))),
    ("table.csv", "a,b\n" + "\n".join(f"{i},x" for i in range(50))),
])
def test_every_reader_stops_at_its_requests_cancel_token(tmp_path, name, text):
    """A given-up request's token is set: the reader stops at its next row, whatever the layout."""
    (tmp_path / name).write_text(text)
    token = threading.Event()
    token.set()
    context = contextvars.copy_context()  # the request's context, as the page's guard makes it
    context.run(cancel.bind, token)
    with pytest.raises(cancel.Cancelled):
        context.run(frame, tmp_path / name, Budget(name))
