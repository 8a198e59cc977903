"""The docs hold together: the architecture page stays a short map whose layer table names every package, the index
links every page of docs/, and the global cosine's page shows its record's rows."""

import json
import re
from pathlib import Path

from scripts.doc_tables import table

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
ARCHITECTURE = DOCS / "ARCHITECTURE.md"


def layer_table_packages() -> set[str]:
    """Every path named in backticks in the second column of ARCHITECTURE.md's layer table."""
    rows = [line for line in ARCHITECTURE.read_text().splitlines() if line.startswith("| ")]
    return {p.rstrip("/") for row in rows for p in re.findall(r"`([\w/.]+)`", row.split("|")[2])}


def test_the_architecture_page_is_a_short_map():
    lines = ARCHITECTURE.read_text().splitlines()
    assert len(lines) <= 100, f"{len(lines)} lines"
    assert [n for n, line in enumerate(lines, 1) if len(line) > 120] == []


def test_the_layer_table_names_every_package_of_explorer():
    packages = {f"explorer/{p.parent.name}" for p in (ROOT / "explorer").glob("*/__init__.py")}
    assert packages and packages <= layer_table_packages(), sorted(packages - layer_table_packages())


def test_the_index_links_every_page():
    index = (DOCS / "README.md").read_text()
    linked = set(re.findall(r"\]\(([\w.-]+\.md)\)", index))
    pages = {p.name for p in DOCS.glob("*.md")} - {"README.md"}
    assert pages <= linked, sorted(pages - linked)
    assert {p for p in linked if not (DOCS / p).is_file()} == set()


def test_the_guide_shows_pictures_that_exist():
    guide = (DOCS / "guide.md").read_text()
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", guide)
    assert len(pictures) >= 8
    assert [p for p in pictures if not (DOCS / p).is_file()] == []


def test_the_global_cosine_page_shows_its_records_rows():
    rows = table(json.loads((DOCS / "results" / "world-global-sgi.json").read_text())).splitlines()
    text = (DOCS / "global.md").read_text()
    assert "\n".join(rows[:2] + [r for r in rows[2:] if "| global |" in r]) in text
