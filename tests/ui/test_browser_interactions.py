"""The maps tab's interactions panel in a real headless Chromium: pick a word, read its map in A and in B, pick a
region, at 1440 and at 390 px."""

import pytest

from tests.ui.test_browser import CHROMIUM, RIGHT, WRONG, _compare, _page, _scene, chromium  # noqa: F401

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH: `./run test` installs Debian's chromium when run as root"),
]


def test_picking_a_word_draws_its_map_in_a_and_b_beside_the_picture(chromium, tmp_path):  # noqa: F811
    from playwright.sync_api import expect

    with _page(chromium) as (browser, page, url):
        page.set_viewport_size({"width": 1440, "height": 1800})
        _compare(page, _scene(tmp_path), RIGHT, WRONG)
        page.get_by_role("tab", name="Where the model looks").click()
        page.locator("#interactions-words input").click()
        page.get_by_role("option", name="red", exact=True).click()
        maps = page.locator("#interactions-maps .js-plotly-plot")
        expect(page.locator("#interactions-note")).to_contain_text("words: red", timeout=180_000)
        expect(maps.locator("image")).to_have_count(2, timeout=30_000)  # A's map and B's, each beside its picture
        expect(maps.first).to_contain_text("interaction with the cosine")  # one colour bar's title, one scale
        expect(page.locator("#interactions-maps")).not_to_contain_text("No map")  # "red" is in A and in B
        a, b = (maps.nth(i).bounding_box() for i in range(2))
        assert b["x"] >= a["x"] + a["width"] - 1 and abs(a["y"] - b["y"]) < 5  # side by side at 1440 px
        source = maps.first.evaluate("el => el.data[0].source")
        expect(page.locator("#interactions-shares .share")).to_have_count(14)  # A's 7 words and B's
        page.get_by_label("left half").check()
        expect(page.locator("#interactions-note")).to_contain_text("left half", timeout=180_000)
        assert maps.first.evaluate("el => el.data[0].source") == source  # the word's map stays; its shares move
        page.locator("#interactions-words input").click()
        page.get_by_role("option", name="red square", exact=True).click()  # a span of A, absent from B
        expect(page.locator("#interactions-maps")).to_contain_text("no \u201cred square\u201d", timeout=180_000)
        cut = page.locator("#interactions-recorded .body-cell span").evaluate_all(
            "ss => ss.filter(s => s.scrollWidth > s.parentElement.clientWidth + 1).map(s => s.textContent)")
        assert not cut, cut  # the recorded reading: every cell whole, its figure, interval and reading
        page.set_viewport_size({"width": 390, "height": 844})  # a phone: B's map below A's
        page.wait_for_function("() => { const m = document.querySelectorAll('#interactions-maps .js-plotly-plot');"
                               " return m[1].getBoundingClientRect().top >= m[0].getBoundingClientRect().bottom - 1; }")
        assert maps.first.bounding_box()["width"] >= 280  # inside the panel's padding
