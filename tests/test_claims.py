"""docs/claims.md is held to its records: each row's record cell names the figures it rests on (``FILE.json:key/path``,
one per seed or side), and its verdict word must be the one those figures give: the reading a binding figure's
adjusted p gives, the reading of a correlation's exact p and Fisher interval, an interval against the chance the row
names, or two intervals against each other. Every number the row shows must be a recorded one at the digits shown,
a binding row's null cell its record's field by field, and every record must be present. Each kind of edit against
the record (verdict, mixed wording, figure, interval, null, adjusted p, a seed's figure, a record dropped or missing)
is made to a copy of the table below and must fail."""

import functools
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = ROOT / "docs" / "claims.md"
HEADER = ["claim", "source", "figure [95%]", "null, adjusted p", "every seed", "command", "record", "verdict"]
SPAN = re.compile(r"`([^`]+\.json):([^`]+)`")
COMPARISONS = ("higher", "level", "lower")
READINGS = ("above chance", "at chance", "below chance", "positive", "negative", "not supported", "unstable")
NUMBER = re.compile(r"(?<![\w.\-])-?\d+\.\d+(?:e-?\d+)?|(?<![\w.\-])-?\d+e-?\d+")  # decimals and exponents only
CHECKED = ("figure [95%]", "null, adjusted p", "every seed", "verdict")  # cells whose numbers must be recorded
KIND = {"image": "images", "text": "captions"}


def _numbers(node) -> list[float]:
    """Every number of a record's entry, its null's draws left out."""
    if isinstance(node, bool):
        return []
    if isinstance(node, (int, float)):
        return [float(node)]
    if isinstance(node, dict):
        return [x for k, v in node.items() if k != "values" for x in _numbers(v)]
    if isinstance(node, list):
        return [x for v in node for x in _numbers(v)]
    return []


def _as_shown(token: str, recorded: float) -> bool:
    """Whether ``recorded`` rounds to ``token`` at the digits ``token`` shows."""
    mantissa, _, exponent = token.partition("e")
    digits = len(mantissa.split(".")[1]) if "." in mantissa else 0
    step = 10 ** (-digits + (int(exponent) if exponent else 0))
    return abs(recorded - float(token)) <= step / 2 + 1e-12 * max(1.0, abs(recorded))


def check_row(row: dict[str, str]) -> None:
    """Every figure of the row against its records: each record present, every decimal number the row shows is a
    recorded one (figure, interval, null, p, adjusted p, each seed), a binding row's null cell matches its records
    field by field, an entry without an interval says why, and a mixed verdict names each kind's own reading."""
    spans = SPAN.findall(row["record"])
    assert spans, f"{row['claim']}: no record figure named"
    for path, key in spans:
        assert (ROOT / path).is_file(), f"{row['claim']}: its record {path} is missing"
    found = [figure(path, key) for path, key in spans]
    recorded = [x for entry, interval in found for x in _numbers(entry) + _numbers(interval or [])]
    context = set(NUMBER.findall(row["claim"] + row["command"]))
    for cell in CHECKED:
        text = re.sub(r"chance \d+(?:\.\d+)?", "", row[cell])
        for token in NUMBER.findall(text):
            assert token in context or any(_as_shown(token, r) for r in recorded), \
                f"{row['claim']}: {cell} shows {token}, which no record of the row holds"
    entries = {key.rsplit(".", 1)[-1]: entry for (_, key), (entry, _) in zip(spans, found)
               if isinstance(entry, dict) and "reading" in entry and key.startswith("figures/")}
    for kind, entry in entries.items():
        null = entry["null"]
        if null.get("p") is None:
            assert f"{kind}: not tested" in row["null, adjusted p"], f"{row['claim']}: {kind} untested, unsaid"
            continue
        shown = re.search(rf"{kind}: null (\S+) \[(\S+), (\S+)\], p (\S+), adjusted p (\S+?)[;)]?(?:\s|$)",
                          row["null, adjusted p"])
        assert shown, f"{row['claim']}: no {kind} null in the form 'null M [L, H], p P, adjusted p A'"
        for token, value in zip(shown.groups(), (null["mean"], *null["range"], null["p"], null["p_adjusted"])):
            assert _as_shown(token.rstrip(";,"), value), f"{row['claim']}: {kind} shows {token}, recorded {value}"
        if "interval" not in entry:
            assert "no interval" in row["figure [95%]"], f"{row['claim']}: {kind} has no interval and says not why"
        if entry["reading"] == "unstable":
            assert "unstable" in row["verdict"], f"{row['claim']}: {kind} is unstable across seeds"
        if row["verdict"].startswith("mixed") and len(entries) > 1:
            assert f"{entry['reading']} in the {KIND[kind]}" in row["verdict"], \
                f"{row['claim']}: the verdict does not name the {KIND[kind]}' reading, {entry['reading']}"


def rows(text: str) -> list[dict[str, str]]:
    """The claims tables' body rows, as {column: cell}."""
    out = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and cells != HEADER and not set(line) <= set("|-: "):
            out.append(dict(zip(HEADER, cells)))
    return out


@functools.lru_cache(maxsize=None)
def _load(path: str):
    return json.loads((ROOT / path).read_text())


def figure(path: str, key: str):
    """The record's entry at ``key`` (keys joined by "/"), and its interval where it has one."""
    node, parent, leaf = _load(path), None, None
    for part in key.split("/"):
        parent, leaf, node = node, part, node[int(part)] if isinstance(node, list) else node[part]
    if isinstance(node, dict):
        return node, node.get("interval") or node.get("ci")
    siblings = (parent.get("ci", {}).get(leaf), parent.get(f"{leaf}_ci"), parent.get(f"{leaf.rsplit('_', 1)[0]}_ci"))
    return node, next((s for s in siblings if s is not None), None)


def reading(entry, interval, chance: float | None) -> str:
    """What a figure reads as: a binding entry's own reading (it follows its adjusted p, ``tests/readings``), a
    correlation's, or its interval against the row's chance."""
    if isinstance(entry, dict) and "reading" in entry:
        return entry["reading"]
    assert interval is not None and chance is not None, "a figure without a reading needs an interval and a chance"
    low, high = interval
    return "above chance" if low > chance else "below chance" if high < chance else "at chance"


def compare(a, b) -> str:
    """Two intervals against each other."""
    return "higher" if a[0] > b[1] else "lower" if a[1] < b[0] else "level"


def value(entry) -> float:
    if isinstance(entry, dict):
        return entry.get("value", entry.get("r", entry.get("percent")))
    return entry


def verdict_of(row: dict[str, str]) -> str:
    """The verdict the row's records give: one reading, or "mixed" when its seeds differ."""
    spans = SPAN.findall(row["record"])
    assert spans, f"{row['claim']}: no record figure named"
    chance = re.search(r"chance (\d+(?:\.\d+)?)", row["null, adjusted p"])
    found = [figure(path, key) for path, key in spans]
    for entry, _ in found:
        assert f"{value(entry)}".rstrip("0").rstrip(".") in row["figure [95%]"] + row["every seed"], \
            f"{row['claim']}: {value(entry)} is not shown"
    if row["verdict"].startswith(COMPARISONS) or row["verdict"].startswith("mixed") and len(found) % 2 == 0 \
            and "against" in row["figure [95%]"]:
        outcomes = {compare(a[1], b[1]) for a, b in zip(found[::2], found[1::2])}
    else:
        outcomes = {reading(entry, interval, float(chance.group(1)) if chance else None) for entry, interval in found}
    return outcomes.pop() if len(outcomes) == 1 else "mixed"


def test_the_table_has_the_columns_asked_for_and_every_row_a_record():
    text = CLAIMS.read_text()
    assert "| " + " | ".join(HEADER) + " |" in text
    found = rows(text)
    assert len(found) >= 15
    for row in found:
        assert all(row.values()), row["claim"]
        assert row["verdict"].startswith(("mixed", "not measured", *COMPARISONS, *READINGS)), row["claim"]
        assert row["source"].startswith(("`../shared/seeds/", "`docs/")), row["claim"]


def check_table(text: str) -> None:
    """Every measured row of a claims table held to its records (``check_row``, ``verdict_of``)."""
    for row in rows(text):
        if row["verdict"].startswith("not measured"):
            continue
        check_row(row)
        assert row["verdict"].startswith(verdict_of(row)), f"{row['claim']}: the record reads {verdict_of(row)}"


def test_every_verdict_and_figure_is_the_one_its_record_gives():
    check_table(CLAIMS.read_text())


def test_a_verdict_edited_against_its_record_fails():
    text = CLAIMS.read_text()
    row = next(r for r in rows(text) if r["verdict"].startswith("at chance") and SPAN.search(r["record"]))
    edited = rows(text.replace(f"| {row['verdict']} |", f"| above chance{row['verdict'][len('at chance'):]} |", 1))
    bad = next(r for r in edited if r["claim"] == row["claim"])
    with pytest.raises(AssertionError):
        assert bad["verdict"].startswith(verdict_of(bad))


def _line(row: dict[str, str]) -> str:
    return "| " + " | ".join(row[h] for h in HEADER) + " |"


def _bump(token: str) -> str:
    """``token`` moved by 7 units of its last digit, shown with the same digits."""
    mantissa, e, exponent = token.partition("e")
    digits = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return f"{float(mantissa) + 7 * 10 ** -digits:.{digits}f}" + (e + exponent if e else "")


def _edit_number(pattern: str):
    """An edit of a cell: the first number matched by ``pattern`` (its group 1) moved (``_bump``)."""
    def edit(text: str) -> str | None:
        found = re.search(pattern, text)
        return None if not found else text[:found.start(1)] + _bump(found[1]) + text[found.end(1):]
    return edit


_N = r"(-?\d+\.\d+(?:e-?\d+)?|\d+e-?\d+)"
EDITS = {  # kind of edit: (the cell, the edit; None where the row has nothing of that kind)
    "figure": ("figure [95%]", _edit_number(rf"(?:^|[:;] |against ){_N}(?! \]| x)")),
    "interval": ("figure [95%]", _edit_number(rf"\[{_N},")),
    "null": ("null, adjusted p", _edit_number(rf"(?:null|exact permutation p) {_N}")),
    "adjusted p": ("null, adjusted p", _edit_number(rf"adjusted p {_N}")),
    "seed": ("every seed", _edit_number(rf"[:/] {_N}")),
    "mixed wording": ("verdict", lambda v: v.replace("images", "@").replace("captions", "images")
                      .replace("@", "captions") if v.startswith("mixed") and "images" in v and "captions" in v
                      else None),
    "record dropped": ("record", lambda r: r.rsplit(" ", 1)[0] if len(SPAN.findall(r)) > 1 else None),
    "record missing": ("record", lambda r: r.replace(".json:", "-gone.json:", 1)),
}


@pytest.mark.parametrize("kind", EDITS)
def test_every_kind_of_edit_against_the_record_fails(kind):
    """Each kind of edit, made to each measured row where the row has something of that kind, on a copy of the table:
    the check fails on every one, and the unedited table passes."""
    text = CLAIMS.read_text()
    check_table(text)
    cell, edit = EDITS[kind]
    edited = 0
    for row in rows(text):
        new = None if row["verdict"].startswith("not measured") else edit(row[cell])
        if new is None or new == row[cell]:
            continue
        copy = text.replace(_line(row), _line(row | {cell: new}), 1)
        assert copy != text
        with pytest.raises((AssertionError, KeyError, FileNotFoundError)):
            check_table(copy)
        edited += 1
    assert edited >= (1 if kind in ("mixed wording", "adjusted p") else 3), f"only {edited} rows took a {kind} edit"
