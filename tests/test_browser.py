"""End to end in a real headless Chromium (Debian's), driven by Playwright."""

import shutil

import pytest

from explorer import world
from tests.app_server import running_app

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH: `./run test` installs Debian's chromium when run as root"),
]


def test_upload_type_run_and_see_scores_overlays_and_method_tabs(embedded, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    a = world.WorldObject("red", "square", "large", 0.27, 0.3)
    b = world.WorldObject("blue", "circle", "large", 0.72, 0.7)
    scene = tmp_path / "scene.png"
    world.Scene((a, b)).render(128).save(scene)
    with running_app(embedded) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1800})
        page.goto(url)
        page.locator("#upload input[type=file]").set_input_files(str(scene))
        page.locator("#caption-a textarea").fill("a red square and a blue circle")
        page.locator("#caption-b textarea").fill("a blue square and a red circle")
        page.locator("#run").click()
        expect(page.locator("#status")).to_contain_text("Done", timeout=60_000)
        table = page.locator("#scores")
        expect(table).to_contain_text("SGI")
        expect(table).to_contain_text("global cosine")
        for overlay in ("#overlay-a img", "#overlay-b img"):
            expect(page.locator(overlay)).to_be_visible()
            assert page.locator(overlay).evaluate("img => img.naturalWidth") > 0
        expect(page.locator("#heatmap .js-plotly-plot")).to_be_visible()
        page.screenshot(path=str(tmp_path / "page.png"), full_page=True)

        page.get_by_role("tab", name="TFLocal attention").click()
        expect(page.locator("#tflocal-scores")).to_contain_text("TFLocal", timeout=30_000)
        for heat in ("#attention-a img", "#attention-b img"):
            expect(page.locator(heat)).to_be_visible(timeout=30_000)
        expect(page.locator("#tokens-a")).to_contain_text("square")

        page.get_by_role("tab", name="PowerCLIP powerset").click()
        expect(page.locator("#powerset-note")).to_contain_text("NLA", timeout=30_000)
        for shown in ("#tree-a .js-plotly-plot", "#tree-b .js-plotly-plot", "#subset-a img", "#subset-b img"):
            expect(page.locator(shown)).to_be_visible(timeout=30_000)
        browser.close()


def _pick_model(page, choice: str) -> None:
    box = page.locator("#model input")
    box.click()
    box.fill(choice)
    page.get_by_role("option", name=choice, exact=True).click()


def test_two_pages_keep_their_own_models_and_caption_edits_rescore(embedded, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    scene = tmp_path / "scene.png"
    world.Scene((world.WorldObject("red", "square", "large", 0.27, 0.3),
                 world.WorldObject("blue", "circle", "large", 0.72, 0.7))).render(128).save(scene)
    twin = "world-clip-powerclip (project checkpoint)"
    with running_app(embedded) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        first, second = (browser.new_page(viewport={"width": 1400, "height": 1800}) for _ in range(2))
        for page in (first, second):
            page.goto(url)
        _pick_model(first, "ViT-B-32 / openai")  # unreachable here: the message stays, the menu goes back
        expect(first.locator("#status")).to_contain_text("cannot be reached", timeout=30_000)
        first.wait_for_timeout(1500)
        expect(first.locator("#status")).to_contain_text("cannot be reached")
        expect(first.locator("#model input")).to_have_value("world-clip (embedded)")
        _pick_model(first, twin)
        expect(first.locator("#device")).to_contain_text("world-clip-powerclip", timeout=30_000)
        for page in (first, second):
            page.locator("#upload input[type=file]").set_input_files(str(scene))
            page.locator("#caption-a textarea").fill("a red square and a blue circle")
            page.locator("#caption-b textarea").fill("a blue square and a red circle")
            page.locator("#run").click()
        expect(first.locator("#status")).to_contain_text("scored by world-clip @ world-clip-powerclip", timeout=60_000)
        expect(second.locator("#status")).to_contain_text("scored by world-clip (embedded)", timeout=60_000)
        expect(second.locator("#device")).to_contain_text("world-clip (embedded)")
        expect(first.locator("#scores")).to_contain_text("TFLocal (untrained)")
        expect(second.locator("#legend")).to_contain_text("prefers")

        table = second.locator("#scores")
        before = table.inner_text()
        second.locator("#caption-b textarea").press_sequentially(" on a grey floor", delay=20)  # no click
        expect(table).not_to_have_text(before, timeout=30_000)
        expect(second.locator("#status")).to_contain_text("scored by world-clip (embedded)")
        second.get_by_role("tab", name="TFLocal attention").click()  # drawn when seen, from the edited comparison
        expect(second.locator("#tflocal-note")).to_contain_text("on a grey floor", timeout=30_000)
        expect(second.locator("#attention-b img")).to_be_visible(timeout=30_000)
        browser.close()
