"""The maps tab's heads panel in a real headless Chromium: open it, read the layer x head grid, pick a head and read
its texts, at 1440 and at 390 px (``HEADS_SHOTS=folder`` keeps both screenshots)."""

import os

import pytest

from tests.ui.test_browser import CHROMIUM, RIGHT, WRONG, _compare, _page, _scene, chromium  # noqa: F401

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH: `./run test` installs Debian's chromium when run as root"),
]


def test_picking_a_head_shows_its_map_and_its_texts(chromium, embedded, tmp_path):  # noqa: F811
    from playwright.sync_api import expect

    from explorer.explain.textspan import world_pool

    shots = os.environ.get("HEADS_SHOTS")
    with _page(chromium) as (browser, page, url):
        page.set_viewport_size({"width": 1440, "height": 2400})
        _compare(page, _scene(tmp_path), RIGHT, WRONG)
        page.get_by_role("tab", name="Where the model looks").click()
        page.locator("#heads").get_by_text("Which heads tell A from B").click()
        expect(page.locator("#heads-note")).to_contain_text("cos(A)", timeout=300_000)
        grid = page.locator("#heads-grid .js-plotly-plot")
        expect(grid).to_contain_text("share of", timeout=30_000)  # the colour bar's title: A and B on one scale
        blocks = embedded.model.visual.transformer.resblocks
        assert grid.evaluate("el => el._fullData[0].z.length") == len(blocks)
        page.locator("#heads-menu input").click()
        page.get_by_role("option", name="layer 0, head 1", exact=False).click()
        expect(page.locator("#heads-texts")).to_contain_text("layer 0, head 1 writes", timeout=180_000)
        texts = page.locator("#heads-texts-list li")
        expect(texts).to_have_count(5)
        pool = set(world_pool()) | {RIGHT, WRONG}
        assert all(t.split(" (")[0] in pool for t in texts.all_inner_texts())  # each text from the pool
        expect(page.locator("#heads-map .js-plotly-plot")).to_contain_text("Layer 0, head 1")
        expect(page.locator("#heads-ablation")).to_contain_text("Mean-ablating layer 0, head 1")
        if shots:
            page.locator("#heads").screenshot(path=os.path.join(shots, "heads-1440.png"))
        page.set_viewport_size({"width": 390, "height": 2400})  # a phone: the map below the grid
        page.wait_for_function("() => { const m = document.querySelectorAll('#heads-figures .js-plotly-plot');"
                               " return m[1].getBoundingClientRect().top >= m[0].getBoundingClientRect().bottom - 1; }")
        if shots:
            page.locator("#heads").screenshot(path=os.path.join(shots, "heads-390.png"))
