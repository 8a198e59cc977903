"""Every row of an own pairs file judged alone: a row that is not UTF-8, too long, badly quoted, with a field too many,
a control character or a repeat of the header is named by its line, and every good row around it loads; a header
that names a column twice or one unknown is refused by name; each JSON Lines field's type is checked."""

import json
import re
import threading

import pytest

from explorer.cli import main
from explorer.core import cancel
from explorer.eval import pairs, pairs_rows
from explorer.eval.benchmark_registry import left_out, load_items
from explorer.eval.dataset_loaders import DatasetError
from explorer.eval.pairs import read_pairs
from tests.eval.test_pairs import scenes

LATIN_1 = "une carré rouge et un cercle bleu".encode("latin-1")
LONG = "a red square " * 16_000  # ~200 KB, more than csv's own field limit of 128 KiB


def bad_rows_among_good(folder) -> tuple[bytes, list[int], dict[int, tuple[str, str]]]:
    """A CSV of six good rows with a bad one between each two: (its bytes, the good rows' lines, each bad row's line
    with its field and a word of its problem)."""
    good = [f"{row[0]},{row[2]},{row[3]}".encode() for row in scenes(folder, 6)]
    bad = [(b"s0-0.png," + LATIN_1 + b",a blue square", "(row)", "not UTF-8 text (byte 0xe9"),
           (f"s0-0.png,a blue circle,{LONG}".encode(), "caption_b", "Caption B is longer than 1000 characters"),
           (b's0-0.png,"a red square,a blue square', "(row)", "a quote opens a field and the line ends"),
           (b"s0-0.png,a red square,a blue square,extra", "(row)", "4 fields, more than the header's 3"),
           (b"s0-0.png,a red\x00square,a blue square", "caption_a", "control character (U+0000) at character 6")]
    lines, good_lines, bad_lines = [b"image,caption_a,caption_b"], [], {}
    for i, row in enumerate(good):
        lines.append(row)
        good_lines.append(len(lines))
        if i < len(bad):
            lines.append(bad[i][0])
            bad_lines[len(lines)] = bad[i][1:]
    lines.append(b"image,caption_a,caption_b")
    bad_lines[len(lines)] = ("(row)", "a repeat of the header row")
    return b"\n".join(lines) + b"\n", good_lines, bad_lines


def test_each_bad_row_is_named_by_its_line_and_every_good_row_loads(tmp_path):
    data, good_lines, bad_lines = bad_rows_among_good(tmp_path)
    (tmp_path / "mine.csv").write_bytes(data)
    items, bad = read_pairs(tmp_path / "mine.csv")
    assert [it.id for it in items] == [f"line {n}" for n in good_lines]
    assert {b.line: b.field for b in bad} == {line: field for line, (field, _) in bad_lines.items()}
    for row in bad:
        assert bad_lines[row.line][1] in row.problem, row


def test_a_row_over_the_row_limit_is_named_and_not_read(tmp_path, monkeypatch):
    monkeypatch.setattr(pairs_rows, "MAX_ROW_BYTES", 100)
    monkeypatch.setattr(pairs_rows, "_SKIP_CHUNK", 7)  # the rest of the long line skipped a few bytes at a time
    good = scenes(tmp_path, 2)
    (tmp_path / "mine.csv").write_text(f"image,caption_a,caption_b\n{good[0][0]},{'a red square ' * 20},b\n"
                                       f"{good[1][0]},{good[1][2]},{good[1][3]}\n")
    items, bad = read_pairs(tmp_path / "mine.csv")
    assert [it.id for it in items] == ["line 3"] and bad[0].line == 2 and "longer than 100 bytes" in bad[0].problem


@pytest.mark.parametrize("header, said", [
    ("image,caption_a,caption_b,caption_b", "names 'caption_b' twice (columns 3 and 4)"),
    ("image,caption_a,caption_b,captoin", "names 'captoin' (column 4), not a column of own pairs"),
    ("image,caption_a,caption_b,", "has an unnamed column (column 4)"),
    ('image,"caption_a,caption_b', "(line 1): a quote opens a field"),
    ("\nimage,caption_\xe1,caption_b", "(line 2): not UTF-8 text (byte 0xe1 at byte 15, in 'age,caption_á,caption_b' as Windows-1252 reads it)"),
])
def test_a_header_with_a_repeated_or_unknown_column_is_refused_by_name(tmp_path, header, said):
    (tmp_path / "mine.csv").write_bytes(f"{header}\nx.png,a,b,c\n".encode("latin-1"))
    with pytest.raises(DatasetError, match=re.escape(f"mine.csv: the header row {said}")):
        read_pairs(tmp_path / "mine.csv")


def test_a_file_saved_as_utf16_is_refused_by_what_would_help(tmp_path):
    (tmp_path / "mine.csv").write_text("image,caption_a,caption_b\nx.png,a,b\n", encoding="utf-16")
    with pytest.raises(DatasetError, match=r"mine.csv is saved as UTF-16: save it as UTF-8 \(in a spreadsheet: CSV "
                                           r"UTF-8\)"):
        read_pairs(tmp_path / "mine.csv")


def test_a_file_that_cannot_be_read_is_named_without_its_folder(tmp_path, monkeypatch):
    (tmp_path / "mine.csv").write_text("image,caption_a,caption_b\n")

    def refused(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(pairs_rows.Path, "open", refused)
    with pytest.raises(DatasetError) as found:
        read_pairs(tmp_path / "mine.csv")
    assert str(found.value) == "mine.csv cannot be read (Permission denied)"


def test_every_jsonl_field_is_checked_and_the_message_says_what_it_found(tmp_path):
    good = scenes(tmp_path, 1)[0]
    row = {"image": good[0], "caption_a": good[2], "caption_b": good[3]}
    lines = [json.dumps(row),
             json.dumps(row | {"image": [good[0]]}),
             json.dumps(row | {"caption_b": 3}),
             json.dumps(row | {"category": {"name": "x"}}),
             json.dumps(row | {"image_b": True}),
             json.dumps(row | {"caption_a": "a red\u0007square"}),
             json.dumps(row | {"captoin": "x"}),
             json.dumps(row)[:-1] + ', "caption_b": "again"}',
             json.dumps("just text"),
             json.dumps(row | {"category": "shapes", "image_b": None})]
    (tmp_path / "mine.jsonl").write_text("\n".join(lines) + "\n")
    items, bad = read_pairs(tmp_path / "mine.jsonl")
    assert [it.id for it in items] == ["line 1", "line 10"] and items[1].category == "shapes"
    assert [str(b) for b in bad] == [
        f"line 2, field 'image': a list ([\"{good[0]}\"]), not text",
        "line 3, field 'caption_b': a number (3), not text",
        "line 4, field 'category': an object ({\"name\": \"x\"}), not text",
        "line 5, field 'image_b': true or false (true), not text",
        "line 6, field 'caption_a': holds a control character (U+0007) at character 6: a field is plain text",
        "line 7, field 'captoin': not a field of own pairs (image, caption_a, caption_b; optional image_b, "
        "category): rename or remove it",
        "line 8, field 'caption_b': named twice in the row: which one to read is not clear, so keep one",
        "line 9, field '(row)': text (\"just text\"), not a JSON object with the fields image, caption_a, caption_b; "
        "optional image_b, category"]


def test_a_file_with_no_good_row_names_its_first_bad_lines(tmp_path):
    (tmp_path / "mine.csv").write_text("image,caption_a,caption_b\n" + "gone.png,a red square,a blue square\n" * 5)
    with pytest.raises(DatasetError, match=r"no usable row \(5 left out: line 2, field 'image': no image file at "
                                           r"'gone.png' .*; line 4, .*; \.\.\.\)"):
        load_items("pairs", tmp_path / "mine.csv")


def test_reading_stops_at_the_requests_cancel_token(tmp_path):
    (tmp_path / "mine.csv").write_text("image,caption_a,caption_b\n" + "x.png,a red square,a blue square\n" * 50)
    token = threading.Event()
    token.set()
    cancel.bind(token)
    try:
        with pytest.raises(cancel.Cancelled):
            read_pairs(tmp_path / "mine.csv")
    finally:
        cancel.bind(threading.Event())


def test_a_load_and_its_rows_left_out_check_each_image_once(tmp_path, monkeypatch):
    good = scenes(tmp_path, 2)
    rows = [f"{good[i % 2][0]},{good[i % 2][2]},{good[i % 2][3]}" for i in range(10)] + ["gone.png,a,b"]
    (tmp_path / "mine.csv").write_text("image,caption_a,caption_b\n" + "\n".join(rows) + "\n")
    checked = []
    real = pairs._image_problem
    monkeypatch.setattr(pairs, "_image_problem", lambda path, value: checked.append(value) or real(path, value))
    assert len(load_items("pairs", tmp_path / "mine.csv", 50)) == 10
    assert [row.split(":")[0] for row in left_out("pairs", tmp_path / "mine.csv")] == ["line 12, field 'image'"]
    assert sorted(checked) == sorted([good[0][0], good[1][0], "gone.png"])  # each file once, for both


def test_eval_on_a_file_with_bad_rows_among_good_ones_scores_every_good_row(tmp_path, caplog):
    data, good_lines, bad_lines = bad_rows_among_good(tmp_path)
    (tmp_path / "mine.csv").write_bytes(data)
    out = tmp_path / "mine.json"
    assert main(["eval", "--benchmark", "pairs", "--data", str(tmp_path / "mine.csv"), "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert [s.split(",")[0] for s in report["skipped"]] == [f"line {n}" for n in bad_lines]
    assert report["results"]["global"]["pairs"]["n"] == len(good_lines)
    (tmp_path / "twice.csv").write_text("image,caption_a,caption_b,caption_b\ns0-0.png,a,b,c\n")
    assert main(["eval", "--benchmark", "pairs", "--data", str(tmp_path / "twice.csv")]) == 2
    assert "twice.csv: the header row names 'caption_b' twice" in caplog.text
