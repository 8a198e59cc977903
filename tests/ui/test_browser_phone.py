"""On a phone (390 px) in a real headless Chromium: what a panel says is read where it is, at a readable size."""

from contextlib import contextmanager

import numpy as np
import pytest

from explorer.drawing.marks import strip_font
from explorer.figures.two_by_two import Grid, grids_html
from tests.ui.test_browser import CHROMIUM, chromium, open_tab  # noqa: F401 (chromium: the shared app)
from tests.ui.test_browser_swap import PANEL

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH: `./run test` installs Debian's chromium when run as root"),
]
PHONE = {"width": 390, "height": 844}
READABLE_PX = 13  # the page's own text on a phone (its tables'), the least a picture's text may be


@contextmanager
def _phone(chromium):
    """A page at 390 x 844 px in a browser context of its own, the world example compared on it."""
    from playwright.sync_api import expect

    from explorer.world.examples import examples

    browser, url = chromium
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(url)
    example = examples()[0]
    page.locator("#upload input[type=file]").set_input_files(str(example.path))
    page.locator("#caption-a textarea").fill(example.caption_a)
    page.locator("#caption-b textarea").fill(example.caption_b)
    page.locator("#run").click()
    expect(page.locator("#status")).to_contain_text("Done", timeout=180_000)
    try:
        yield page
    finally:
        context.close()


# a picture's size as drawn on the page and its own size, in pixels
DRAWN = "e => [e.getBoundingClientRect().width, e.naturalWidth]"


def test_powerclips_subset_pictures_text_is_readable_on_a_phone(chromium):
    """The best subset's picture carries its text in its pixels (badges, the node's cosine, each region's size): drawn
    at the page's width, that text is at least 13 px: the picture takes the phone's width, and its text is sized for
    a pair drawn as one picture."""
    from playwright.sync_api import expect

    with _phone(chromium) as page:
        open_tab(page, "PowerCLIP")
        for side in "ab":
            picture = page.locator(f"#subset-{side} img")
            expect(picture).to_be_visible(timeout=120_000)
            picture.scroll_into_view_if_needed()
            page.wait_for_function(f"document.querySelector('#subset-{side} img').naturalWidth > 0")
            width, natural = picture.evaluate(DRAWN)
            # its text is sized for its whole width, the map beside the picture (``marks.labelled``): at least this
            size = strip_font(natural, beside=True).size * width / natural
            assert size >= READABLE_PX, (side, width, natural, size)


# the box of an element, and the screen's height
BOX = "e => { const r = e.getBoundingClientRect(); return [r.top, r.bottom, window.innerHeight]; }"


@pytest.mark.slow
def test_each_tour_steps_text_stays_on_screen_beside_what_it_points_at(chromium):
    """A step scrolls the page to what it points at, far below the tour's picker on a phone: its words come along,
    whole on the screen, and the element it points at is in view above them."""
    from playwright.sync_api import expect

    from explorer.methods import tour_steps
    from explorer.ui.tour import target

    browser, url = chromium
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(url)
    page.get_by_text("Guided tour").click()
    look = page.locator("#tour-look")
    for step in tour_steps():
        page.get_by_label(step.title).check()
        expect(look).to_contain_text(step.title.split(". ", 1)[1], timeout=30_000)
        page.wait_for_timeout(2500)  # the step's tab drawn, its panel opened and the page scrolled to its element
        top, bottom, height = look.evaluate(BOX)
        assert 0 <= top < bottom <= height, (step.title, top, bottom, height)
        element = page.locator(f"#{target(step).split('>')[-1]}")
        shown_top, shown_bottom, _ = element.evaluate(BOX)
        assert shown_bottom > 0 and shown_top < top, (step.title, shown_top, shown_bottom, top)  # seen above the words
    context.close()


# every 2 x 2 grid: its method, the right edges of its table, its frame, the panel, the screen and its header and cells
GRIDS = """() => Array.from(document.querySelectorAll('#two-by-two-scores .two-by-two-grid')).map(g => {
  const t = g.querySelector('table'), right = e => e.getBoundingClientRect().right;
  return {method: g.querySelector('figcaption strong').textContent, table: right(t), grid: right(g),
          panel: right(document.querySelector('#two-by-two-scores')), screen: document.documentElement.clientWidth,
          cells: Array.from(t.querySelectorAll('th, td')).map(right)}; })"""
# the widest grid a method shows: negative two-digit logits (TFLocal's scale), a cell with both marks, a caution
WIDEST = Grid("TFLocal (untrained)", np.array([[-15.1234, -15.2345], [-16.5678, -16.6789]]),
              notes=("on image B: its attention is spread thin over the picture",))


def _cut(grids: list[dict]) -> list[str]:
    """The grids with a column past their frame, the panel or the screen's edge (image B's, the rightmost)."""
    return [f"{g['method']}: its right column ends at {max(g['cells']):.0f} px, its grid at {g['grid']:.0f}, the "
            f"panel at {g['panel']:.0f}, the screen at {g['screen']}" for g in grids
            if max(g["cells"] + [g["table"]]) > min(g["grid"], g["panel"], g["screen"]) + 1]


@pytest.mark.slow
def test_every_methods_2x2_shows_both_pictures_columns_on_a_phone(chromium):
    """Both sides of the swap at 390 px, and on a 320 px phone: each method's grid shows the image A and image B columns
    whole, inside its panel and the screen, for the page's own 2 x 2 and for the widest numbers TFLocal's grid shows."""
    from playwright.sync_api import expect

    with _phone(chromium) as page:
        page.get_by_text(PANEL).click()
        page.locator("#make-b").click()
        scores = page.locator("#two-by-two-scores")
        expect(scores.locator(".two-by-two-grid")).to_have_count(4, timeout=180_000)
        scores.scroll_into_view_if_needed()
        for width in (390, 320):
            page.set_viewport_size({**PHONE, "width": width})
            page.wait_for_timeout(500)
            grids = page.evaluate(GRIDS)
            assert len(grids) == 4 and all(len(g["cells"]) == 9 for g in grids) and not _cut(grids), _cut(grids)
        scores.locator(".two-by-two-grids").evaluate("(e, html) => { e.outerHTML = html; }", grids_html([WIDEST]))
        for width in (390, 320):
            page.set_viewport_size({**PHONE, "width": width})
            page.wait_for_timeout(500)
            assert not _cut(page.evaluate(GRIDS)), _cut(page.evaluate(GRIDS))
