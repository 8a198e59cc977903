"""Browse's overview with a second model, in a real headless Chromium: two models' verdicts on about 200 world items,
the matrix of model B against model A on one method, a slice exported and an item opened with both models' readings.

The page runs the global cosine only (its own app): two models' SGI, TFLocal and PowerCLIP on 208 items would take
the 2-core test machine many minutes; the overview's code is the same for every method."""

import io
import re

import pandas as pd
import pytest

from explorer import world
from tests.app_server import running_app
from tests.ui.test_browser import CHROMIUM, FLAGS, open_tab

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None,
                       reason="no chromium on PATH: `./run test` installs Debian's chromium when run as root"),
]
SECOND = "world-clip-finetune (project checkpoint)"
PER_CATEGORY = 13  # x 16 splits and kinds: 208 items, the world's nearest load to 200


def pick(page, box_id: str, choice: str) -> None:
    """Choose ``choice`` in the dropdown ``#box_id``, typed to filter the menu."""
    box = page.locator(f"#{box_id} input")
    box.click()
    box.fill(choice)
    page.get_by_role("option", name=f"{choice} \u00b7 ").click()  # the entry, with its mark


def load_and_score_both(page, per_category: int = PER_CATEGORY, against: str = SECOND) -> int:
    """On Browse: load ``per_category`` world items per split and kind, pick the second model ``against`` and score
    every item with both; the number of items."""
    from playwright.sync_api import expect

    n = per_category * len(world.SPLITS) * len(world.KINDS)
    page.get_by_role("tab").first.wait_for(timeout=60_000)  # the page drawn: its tabs, or the menu of those left out
    open_tab(page, "Browse a benchmark")
    page.locator("#browse-limit input").fill(str(per_category))
    page.locator("#browse-load").click()
    expect(page.locator("#browse-status")).to_contain_text(f"Loaded {n} items", timeout=60_000)
    pick(page, "overview-model-b", against)
    page.locator("#overview-run").click()
    expect(page.locator("#overview-note")).to_contain_text(f"{n} of {n} items", timeout=300_000)
    return n


@pytest.fixture(scope="module")
def page_url(embedded):
    with running_app(embedded, methods=("global",)) as url:
        yield url


@pytest.mark.slow
def test_two_models_matrix_slice_export_and_an_item_opened_with_both_readings(page_url):
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_context(viewport={"width": 1400, "height": 2400}).new_page()
        page.goto(page_url)
        n = load_and_score_both(page)
        expect(page.locator("#overview-note")).to_contain_text("A: world-clip (embedded)")
        expect(page.locator("#overview-note")).to_contain_text(f"B: {SECOND}")
        matrix = page.locator("#overview-matrix")
        expect(matrix).to_contain_text("A: global cosine right")
        expect(matrix).to_contain_text("B: global cosine wrong")
        said = matrix.inner_text()
        counts = {cell: int(re.search(rf"{cell}: (\d+)", said).group(1))
                  for cell in ("both right", "fixes", "breaks", "both wrong")}
        assert sum(counts.values()) == n and counts["fixes"] > counts["breaks"]  # the fine-tuned model fixes swaps
        diff = 100 * (counts["fixes"] - counts["breaks"]) / n
        expect(page.locator("#overview-note")).to_contain_text(  # B - A over the items, its interval and McNemar's p
            re.compile(rf"B: global cosine - A: global cosine: \+{diff:.1f} points \[[\d.]+, [\d.]+\] over {n} items, "
                       r"McNemar's exact p [\d.e-]+"))

        matrix.get_by_text("fixes:").first.click()
        fixes = counts["fixes"]
        expect(page.locator("#overview-note")).to_contain_text(
            f"{fixes} of {n} items: B: global cosine against A: global cosine, fixes")
        table = page.locator("#overview-table")
        expect(table).to_contain_text("B: global cosine margin")
        page.locator("#overview-export").click()
        expect(page.locator("#overview-note")).to_contain_text(f"Exported {fixes} items", timeout=30_000)
        files = page.locator("#overview-files")
        csv = page.request.get(files.locator("a").first.get_attribute("href")).text()
        rows = pd.read_csv(io.StringIO(csv))
        assert len(rows) == fixes and set(rows["model A"]) == {"world-clip (embedded)"}
        assert set(rows["B: global cosine"]) == {"right"} and set(rows["A: global cosine"]) == {"wrong"}
        assert (rows["B: global cosine margin"] > 0).all() and (rows["A: global cosine margin"] <= 0).all()

        cell = table.get_by_role("row").nth(1).get_by_role("gridcell").nth(1)  # the first item's id
        first_id = cell.inner_text().strip()
        cell.click()
        expect(page.locator("#overview-note")).to_contain_text(f"Opened item {first_id}", timeout=30_000)
        details = page.locator("#browse-details")
        expect(details).to_contain_text(first_id, timeout=60_000)
        expect(details).to_contain_text(f"B: {SECOND}")
        verdicts = details.locator("tr", has_text="global cosine").last
        expect(verdicts).to_contain_text("wrong")  # A's
        expect(verdicts).to_contain_text("right")  # B's
        for side, verdict in (("a", "wrong"), ("b", "right")):  # both models' readings, side by side
            reading = page.locator(f"#browse-reading-{side}")
            expect(reading.locator(".js-plotly-plot")).to_be_visible(timeout=30_000)
            expect(reading).to_contain_text(re.compile(rf"global cosine\s*{verdict}"))  # the title may wrap
        box_a = page.locator("#browse-reading-a").bounding_box()
        box_b = page.locator("#browse-reading-b").bounding_box()
        assert box_a["x"] + box_a["width"] <= box_b["x"] + 1 and abs(box_a["y"] - box_b["y"]) < 2  # side by side
        browser.close()
