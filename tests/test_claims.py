"""docs/claims.md is held to its records: each row's record cell names the figures it rests on (``FILE.json:key/path``,
one per seed or side), and its verdict word must be the one those figures give: the reading a binding figure's
adjusted p gives, the reading of a correlation's exact p and Fisher interval, an interval against the chance the row
names, or two intervals against each other. A verdict edited against its record fails."""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = ROOT / "docs" / "claims.md"
HEADER = ["claim", "source", "figure [95%]", "null, adjusted p", "every seed", "command", "record", "verdict"]
SPAN = re.compile(r"`([^`]+\.json):([^`]+)`")
COMPARISONS = ("higher", "level", "lower")
READINGS = ("above chance", "at chance", "below chance", "positive", "negative", "not supported")


def rows(text: str) -> list[dict[str, str]]:
    """The claims tables' body rows, as {column: cell}."""
    out = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and cells != HEADER and not set(line) <= set("|-: "):
            out.append(dict(zip(HEADER, cells)))
    return out


def figure(path: str, key: str):
    """The record's entry at ``key`` (keys joined by "/"), and its interval where it has one."""
    node, parent, leaf = json.loads((ROOT / path).read_text()), None, None
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


def test_every_verdict_is_the_one_its_record_gives():
    for row in rows(CLAIMS.read_text()):
        if row["verdict"].startswith("not measured"):
            continue
        assert row["verdict"].startswith(verdict_of(row)), f"{row['claim']}: the record reads {verdict_of(row)}"


def test_a_verdict_edited_against_its_record_fails():
    text = CLAIMS.read_text()
    row = next(r for r in rows(text) if r["verdict"].startswith("at chance") and SPAN.search(r["record"]))
    edited = rows(text.replace(f"| {row['verdict']} |", f"| above chance{row['verdict'][len('at chance'):]} |", 1))
    bad = next(r for r in edited if r["claim"] == row["claim"])
    with pytest.raises(AssertionError):
        assert bad["verdict"].startswith(verdict_of(bad))
