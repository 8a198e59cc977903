"""In a real browser: a picture put on the drawing pad, captions proposed from it, image B made and the 2 x 2 read."""

import pytest

from explorer.world.examples import examples
from tests.app_server import running_app
from tests.ui.test_browser import CHROMIUM, FLAGS

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH: `./run test` installs Debian's chromium when run as root"),
]
PANEL = "Draw a picture, have captions proposed"


def draw_propose_swap(page) -> None:
    """Open the panel, start the pad from the first shipped example, propose captions, make image B: each step waits
    for what the page says of it."""
    from playwright.sync_api import expect

    example = examples()[0]
    page.get_by_text(PANEL).click()
    page.locator("#draw-and-swap").get_by_text(example.name, exact=True).first.click()
    expect(page.locator("#image-read img")).to_have_count(1, timeout=60_000)  # the drawing became the page's image
    page.locator("#propose").click()
    expect(page.locator("#proposal")).to_contain_text("Proposed", timeout=120_000)
    page.locator("#make-b").click()
    expect(page.locator("#swap-note")).to_contain_text("Image B:", timeout=180_000)
    expect(page.locator("#swap-b img")).to_have_count(1, timeout=30_000)


@pytest.fixture(scope="module")
def url(embedded):
    with running_app(embedded, methods=["global", "sgi"]) as address:
        yield address


def test_the_pad_proposes_swaps_and_shows_the_2x2(url):
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.goto(url)
        draw_propose_swap(page)
        caption_a = page.locator("#caption-a textarea").input_value()
        caption_b = page.locator("#caption-b textarea").input_value()
        assert caption_a and caption_b and caption_a != caption_b  # both boxes were empty: the proposal filled them
        table = page.locator("#two-by-two")
        for label in ("global cosine", "SGI"):
            expect(table).to_contain_text(label)
        assert table.get_by_text("yes").count() + table.get_by_text("no").count() >= 6  # 3 verdicts x 2 methods
        browser.close()
