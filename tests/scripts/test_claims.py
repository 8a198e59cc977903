"""docs/claims.md: every reading it gives for a source paper's claim is a figure of the doc it cites, whose tables
the other doc tests hold to their records."""

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"
FIGURE = re.compile(r"(?<![\d.])-?\d+\.\d+")  # 88.8, -0.118, 2e-16 is not one (no decimal point before e)


def rows() -> list[list[str]]:
    """The claims tables' body rows, as cells."""
    lines = (DOCS / "claims.md").read_text().splitlines()
    return [[c.strip() for c in line.strip("|").split("|")] for line in lines
            if line.startswith("| ") and not line.startswith("| claim |")]


def test_every_paper_has_its_claims_and_each_row_says_whether_it_compares_like_for_like():
    text = (DOCS / "claims.md").read_text()
    for heading in ("## Revisiting compositionality", "## How embedding models bind", "## PowerCLIP"):
        assert heading in text
    assert len(rows()) >= 15 and all(len(r) == 4 and all(r) for r in rows())
    assert all(r[3].startswith(("Yes", "Partly", "No")) for r in rows())  # the verdict first, then why


def test_each_reading_is_a_figure_of_the_doc_it_cites():
    cited = 0
    for claim, _, reading, _ in rows():
        docs = re.findall(r"`docs/([\w-]+\.md)`", reading)
        if not docs:
            continue
        text = " ".join((DOCS / d).read_text() for d in docs)
        for figure in FIGURE.findall(reading):
            assert figure.lstrip("-") in text, f"{claim}: {figure} is not in {', '.join(docs)}"
            cited += 1
    assert cited >= 30  # the readings are figures, not prose
