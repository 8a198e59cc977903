"""docs/sgi-world.md's table of the object windows on the world benchmark, held to its two records: every SGI cell
that changed is shown with both figures, none is lower, and the other methods' results are the same."""

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RECORDS = ROOT / "docs" / "results" / "sgi-object-windows"


def test_the_table_shows_every_changed_cell_and_none_is_lower():
    before, after = (json.loads((RECORDS / f"world-{w}.json").read_text())["results"] for w in ("before", "after"))
    assert all(before[m] == after[m] for m in ("global", "tflocal", "powerset"))
    page = (ROOT / "docs" / "sgi-world.md").read_text()
    shown = 0
    for split, kinds in before["sgi"].items():
        for kind, was in kinds.items():
            now = after["sgi"][split][kind]
            figures = [(was[s], now[s]) for s in ("text", "image", "group")]
            assert all(b >= a for a, b in figures), (split, kind)
            if kind != "all" and any(a != b for a, b in figures):
                row = f"| {split} | {kind} | " + " / ".join(f"{a:g}" for a, _ in figures) + " | " + \
                      " / ".join(f"{b:g}" for _, b in figures) + " |"
                assert row in page, row
                shown += 1
    assert shown == page.split("## Windows that fit each drawn object")[1].split("##")[0].count("\n| ") - 1
