"""Every figure in a table of ``docs/`` comes from a record: a number that no committed record (``docs/results/``, the
docs' own ``.json``/``.csv``, the shipped checkpoints' records) holds, to the digits shown, fails, unless it is the
difference of two recorded figures of its row or is listed below with the reason it has none. (A figure that some
record happens to hold passes: the test catches figures that no record holds at all, not one copied from the wrong
record; the tests beside each table hold it to its own record.)"""

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
NUMBER = re.compile(r"(?<![\w.,])-?\d{1,3}(?:,\d{3})+(?![\w.,])|(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")
SCALES = (1, 100, 1000)  # a fraction shown as a percentage, seconds shown as milliseconds

# (doc, figure): why it has no record. Each is a parameter of the table, not a measurement, or a figure whose record
# was never committed; a figure listed here that gains a record, or stops being shown, fails the test until removed.
WITHOUT_RECORD = {
}


def _numbers(value, out: set[float]) -> None:
    if isinstance(value, bool):
        return
    if isinstance(value, (int, float)):
        out.add(float(value))
    elif isinstance(value, dict):
        for v in value.values():
            _numbers(v, out)
    elif isinstance(value, list):
        for v in value:
            _numbers(v, out)
    elif isinstance(value, str):
        out.update(float(m.replace(",", "")) for m in NUMBER.findall(value))


def recorded() -> set[float]:
    """Every number any record holds."""
    out: set[float] = set()
    for path in [*DOCS.rglob("*.json"), *DOCS.rglob("*.csv"), *(ROOT / "checkpoints").glob("*.json")]:
        _numbers(json.loads(path.read_text()) if path.suffix == ".json" else path.read_text(), out)
    return out


def _places(figure: str) -> int:
    return len(figure.split(".")[1]) if "." in figure else 0


class Held:
    """Whether some record holds a figure to the digits shown: the recorded numbers at each scale, rounded to each
    number of places a figure shows (a set a number of places, made the first time a figure shows that many)."""

    def __init__(self, numbers: set[float]) -> None:
        self.numbers, self.rounded = numbers, {}

    def __call__(self, figure: str) -> bool:
        places = _places(figure)
        if places not in self.rounded:
            self.rounded[places] = {round(n * scale, places) for n in self.numbers for scale in SCALES}
        return float(figure.replace(",", "")) in self.rounded[places]


def table_rows(text: str) -> list[str]:
    """The body rows of every markdown table (the header and its rule left out), code spans removed; and the
    intervals of a table under an ``<!-- intervals`` comment, which ``scripts/count_intervals.py`` computes from the
    table's own counts (``tests/scripts/test_doc_tables.py`` holds them to it)."""
    rows, table, above = [], [], ""
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            table.append(line)
            continue
        if table:
            body = [re.sub(r"`[^`]*`", "", row) for row in table[2:]]
            rows += [re.sub(r"\[[^\]]*\]", "", row) for row in body] if above.startswith("<!-- intervals") else body
            table = []
        if line.strip():
            above = line
    return rows


def unrecorded(text: str, is_held: Held) -> list[str]:
    """The figures of ``text``'s tables that no record holds and that are no difference of two of their row's."""
    out = []
    for row in table_rows(text):
        figures = NUMBER.findall(row)
        held = [float(f.replace(",", "")) for f in figures if is_held(f)]
        for figure in figures:
            value, places = float(figure.replace(",", "")), _places(figure)
            if not is_held(figure) and not any(round(a - b, places) == value for a in held for b in held):
                out.append(figure)
    return out


def test_a_figure_without_a_record_fails():
    is_held = Held({74.5, 66.2, 0.0141, 1313.8})
    assert unrecorded("| split | sgi |\n|---|---|\n| id | 74.5 [66.2, 80] |\n", is_held) == ["80"]
    assert unrecorded("| a | b | b - a |\n|---|---|---|\n| 74.5 | 66.2 | -8.3 |\n", is_held) == []  # a difference
    assert unrecorded("| x |\n|---|\n| 1.41 | 14.1 ms | 1,314 MB | `abc1234` 3 |\n", is_held) == ["3"]
    counted = "<!-- intervals 500: a -->\n| a |\n|---|\n| 74.5 [71.2, 77.7] |\n"  # count_intervals' own
    assert unrecorded(counted, is_held) == [] and unrecorded(counted.replace("74.5", "74.6"), is_held) == ["74.6"]


def test_every_table_figure_in_the_docs_has_a_record():
    is_held = Held(recorded())
    found = {(doc.name, figure) for doc in DOCS.glob("*.md") for figure in unrecorded(doc.read_text(), is_held)}
    assert found == set(WITHOUT_RECORD), (
        f"figures with no record: {sorted(found - set(WITHOUT_RECORD))}; "
        f"listed as without one but now recorded or gone: {sorted(set(WITHOUT_RECORD) - found)}")
