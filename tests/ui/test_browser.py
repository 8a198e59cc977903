"""End to end in a real headless Chromium (Debian's), driven by Playwright."""

import re
import shutil
from contextlib import contextmanager

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


@pytest.fixture(scope="module")
def chromium(embedded):
    """One app on the embedded model and one headless Chromium, shared by the module's tests: each test is a new
    visitor of the same server (its own browser contexts, so its own page sessions), as people sharing one page are.
    With an app and a Chromium a test, the module took 270 s alone on 2 AVX2 cores; shared, 227 s."""
    from playwright.sync_api import sync_playwright

    with running_app(embedded) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            yield browser, url
        finally:
            browser.close()


@contextmanager
def _page(chromium, height: int = 1800):
    """A page (1400 px wide) on the shared app in a browser context of its own, with the browser and the app's URL
    for more pages; every context the test opened is closed after it."""
    browser, url = chromium
    page = browser.new_context(viewport={"width": 1400, "height": height}).new_page()
    page.goto(url)
    try:
        yield browser, page, url
    finally:
        for context in browser.contexts:
            context.close()


def test_upload_type_run_and_see_scores_overlays_and_method_tabs(chromium, tmp_path):
    from playwright.sync_api import expect

    a = world.WorldObject("red", "square", "large", 0.27, 0.3)
    b = world.WorldObject("blue", "circle", "large", 0.72, 0.7)
    scene = tmp_path / "scene.png"
    world.Scene((a, b)).render(128).save(scene)
    with _page(chromium) as (browser, page, url):
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

        page.get_by_role("tab", name="PowerCLIP").click()
        expect(page.locator("#powerclip-note")).to_contain_text("NLA", timeout=30_000)
        for shown in ("#tree-a .js-plotly-plot", "#tree-b .js-plotly-plot", "#subset-a img", "#subset-b img"):
            expect(page.locator(shown)).to_be_visible(timeout=30_000)

        page.set_viewport_size({"width": 390, "height": 844})  # the same page on a phone
        page.wait_for_timeout(500)  # the tables measure their columns again
        _every_column_reachable(page, "#powerclip-table")
        _label_above_the_picture(page, "#subset-a")
        open_tab(page, "Compare captions")
        expect(page.locator("#heatmap .heatmap-label").first).to_be_visible()
        _fits(page, "#scores")  # five columns: all seen without scrolling
        _label_above_the_picture(page, "#overlay-a")
        values = page.locator("#heatmap .heatmap-label text").evaluate_all(
            "ts => ts.map(t => { const r = t.getBoundingClientRect(); return [r.x, r.y, r.width,"
            " parseFloat(getComputedStyle(t).fontSize)]; })")
        assert values and min(size for *_, size in values) >= 11  # each cosine written at a readable size...
        for x, y, width, _ in values:  # ...and apart from its neighbours in the row
            assert all(abs(x - x2) >= width + 4 for x2, y2, *_ in values if abs(y - y2) < 1 and x2 != x)
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390  # nothing wider than the phone


def _misfits(page, table: str) -> list[str]:
    """The columns of the table that stick out of its box or are too narrow to read."""
    box = page.locator(f"{table} .virtual-table-viewport").bounding_box()
    bad = []
    for header in page.locator(f"{table} .header-cell").all():
        cell = header.bounding_box()
        if not (cell["width"] >= 40 and cell["x"] >= box["x"] - 1
                and cell["x"] + cell["width"] <= box["x"] + box["width"] + 1):
            bad.append(f"{header.inner_text()}: {cell['width']:.0f} px at {cell['x']:.0f}")
    return bad


def _fits(page, table: str, tries: int = 20) -> None:
    """Every column of the table lies inside its box, each wide enough to read, once the table has measured its
    columns again (on a loaded machine that takes more than a moment after the page changes width)."""
    bad = _misfits(page, table)
    for _ in range(tries):
        if not bad:
            return
        page.wait_for_timeout(500)
        bad = _misfits(page, table)
    assert not bad, (table, bad)


def _every_column_reachable(page, table: str) -> None:
    """Scrolled to its end inside its own box (the page itself does not scroll sideways), the table shows its last
    column whole; no word is cut inside a cell."""
    viewport = page.locator(f"{table} .virtual-table-viewport")
    viewport.evaluate("v => { v.scrollLeft = v.scrollWidth; }")
    page.wait_for_timeout(200)
    box, last = viewport.bounding_box(), page.locator(f"{table} .header-cell").last.bounding_box()
    assert box["x"] + box["width"] <= 390 and last["x"] + last["width"] <= box["x"] + box["width"] + 1
    clipped = page.locator(f"{table} .body-cell span").evaluate_all(
        "ss => ss.filter(s => s.scrollWidth > s.parentElement.clientWidth + 1).map(s => s.textContent)")
    assert not clipped, clipped


def _label_above_the_picture(page, block: str) -> None:
    """The block's label and its buttons sit above its picture, on none of its corners."""
    picture = page.locator(f"{block} img").bounding_box()
    for over in (f"{block} label[data-testid=block-label]", f"{block} .top-panel"):
        part = page.locator(over).bounding_box()
        assert part["y"] + part["height"] <= picture["y"] + 1, over


def _pick_model(page, choice: str) -> None:
    box = page.locator("#model input")
    box.click()
    box.fill(choice)
    page.get_by_role("option", name=f"{choice} \u00b7 ").click()  # the entry, with its mark


@pytest.mark.slow
def test_two_pages_keep_their_own_models_and_caption_edits_rescore(chromium, tmp_path):
    from playwright.sync_api import expect

    scene = tmp_path / "scene.png"
    world.Scene((world.WorldObject("red", "square", "large", 0.27, 0.3),
                 world.WorldObject("blue", "circle", "large", 0.72, 0.7))).render(128).save(scene)
    twin = "world-clip-powerclip (project checkpoint)"
    with _page(chromium) as (browser, first, url):
        second = browser.new_page(viewport={"width": 1400, "height": 1800})
        second.goto(url)
        _pick_model(first, "ViT-B-32 / openai")  # unreachable here: the message stays, the menu goes back
        expect(first.locator("#status")).to_contain_text("cannot be reached", timeout=30_000)
        first.wait_for_timeout(1500)
        expect(first.locator("#status")).to_contain_text("cannot be reached")
        expect(first.locator("#model input")).to_have_value(re.compile(r"^world-clip \(embedded\) \u00b7 shipped"))
        _pick_model(first, twin)
        expect(first.locator("#device")).to_contain_text("world-clip-powerclip", timeout=30_000)
        for page in (first, second):
            page.locator("#upload input[type=file]").set_input_files(str(scene))
            page.locator("#caption-a textarea").fill("a red square and a blue circle")
            page.locator("#caption-b textarea").fill("a blue square and a red circle")
            page.locator("#run").click()
        expect(first.locator("#status")).to_contain_text(f"scored by {twin}", timeout=60_000)
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


RIGHT, WRONG = "a red square and a blue circle", "a blue square and a red circle"


def open_tab(page, name: str) -> None:
    """Select a tab, from the page's "More tabs" menu where a narrow screen put it there."""
    tab = page.get_by_role("tab", name=name)
    if not tab.count():
        page.get_by_role("button", name="More tabs").click()
        tab = page.locator(".overflow-dropdown button", has_text=name)
    tab.click()


def _scene(tmp_path):
    path = tmp_path / "scene.png"
    world.Scene((world.WorldObject("red", "square", "large", 0.27, 0.3),
                 world.WorldObject("blue", "circle", "large", 0.72, 0.7))).render(128).save(path)
    return path


def _global_scores(engine, image, caption_a: str, caption_b: str) -> list[str]:
    """The global cosine's two scores as the page's table shows them (4 places, as JavaScript writes a number)."""
    a, b = engine.analyze(image, caption_a, caption_b).scores["global"]
    return [str(round(a.value, 4)), str(round(b.value, 4))]


def _shows_scores_of(page, engine, image, caption_a: str, caption_b: str) -> None:
    """Wait until the page's table holds the global cosine of exactly these captions on this image."""
    from playwright.sync_api import expect

    try:
        for value in _global_scores(engine, image, caption_a, caption_b):
            expect(page.locator("#scores")).to_contain_text(value, timeout=60_000)
        expect(page.locator("#status")).to_contain_text("Done", timeout=30_000)
    except AssertionError as exc:  # what the page said instead
        raise AssertionError(f"the page's status: {page.locator('#status').inner_text()!r}") from exc


def _compare(page, path, caption_a: str, caption_b: str) -> None:
    from playwright.sync_api import expect

    page.locator("#upload input[type=file]").set_input_files(str(path))
    page.locator("#caption-a textarea").fill(caption_a)
    page.locator("#caption-b textarea").fill(caption_b)
    page.locator("#run").click()
    expect(page.locator("#status")).to_contain_text("Done", timeout=60_000)


@pytest.mark.slow
def test_deleting_cutting_and_pasting_in_a_caption_score_it_again(chromium, embedded, tmp_path):
    """Backspace, Delete, cut and paste change a caption as typing does: the scores follow, or clear when a caption is
    emptied; never the previous caption's scores under the new text."""
    from PIL import Image
    from playwright.sync_api import expect

    from explorer.engine import Engine

    engine, path = Engine(embedded), _scene(tmp_path)
    image = Image.open(path).convert("RGB")
    with _page(chromium) as (browser, page, url):
        page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url.rstrip("/"))
        _compare(page, path, RIGHT, WRONG + " on a grey floor")
        _shows_scores_of(page, engine, image, RIGHT, WRONG + " on a grey floor")
        box_a, box_b = page.locator("#caption-a textarea"), page.locator("#caption-b textarea")

        box_b.press("End")
        for _ in range(len(" on a grey floor")):
            box_b.press("Backspace")
        _shows_scores_of(page, engine, image, RIGHT, WRONG)

        box_b.press("Home")
        for _ in range(2):
            box_b.press("Delete")  # "a blue square..." -> "blue square..."
        _shows_scores_of(page, engine, image, RIGHT, WRONG[2:])

        box_a.press("Control+a")
        box_a.press("Control+x")  # caption A cut away: nothing to compare, every result cleared
        expect(page.locator("#status")).to_contain_text("Caption A is empty", timeout=30_000)
        expect(page.locator("#scores")).not_to_contain_text("global cosine")
        expect(page.locator("#overlay-a img")).to_have_count(0)

        box_a.press("Control+v")  # pasted back: scored again
        expect(box_a).to_have_value(RIGHT)
        _shows_scores_of(page, engine, image, RIGHT, WRONG[2:])


def test_an_example_or_a_browse_item_replaces_every_result(chromium, embedded, tmp_path):
    from PIL import Image
    from playwright.sync_api import expect

    from explorer.core.items import picture
    from explorer.engine import Engine
    from explorer.eval.benchmark_registry import load_items
    from explorer.eval.browse import BROWSE_SIZE, for_main_page
    from explorer.world.examples import examples

    engine, path = Engine(embedded), _scene(tmp_path)
    example = examples()[0]
    sent, caption_a, caption_b = for_main_page(load_items("world", None, 50)[0])
    with _page(chromium) as (browser, page, url):
        _compare(page, path, RIGHT, WRONG)
        before = page.locator("#overlay-a img").get_attribute("src")
        page.get_by_text(example.name, exact=True).first.click()
        expect(page.locator("#caption-a textarea")).to_have_value(example.caption_a)
        _shows_scores_of(page, engine, Image.open(example.path).convert("RGB"), example.caption_a, example.caption_b)
        expect(page.locator("#overlay-a img")).not_to_have_attribute("src", before)

        page.get_by_role("tab", name="Browse a benchmark").click()
        page.locator("#browse-load").click()
        expect(page.locator("#browse-status")).to_contain_text("Loaded", timeout=60_000)
        page.locator("#browse-send").click()
        expect(page.locator("#caption-a textarea")).to_have_value(caption_a, timeout=30_000)
        _shows_scores_of(page, engine, picture(sent, BROWSE_SIZE).convert("RGB"), caption_a, caption_b)


@pytest.mark.parametrize("limit, said", [("1000000000", "got 1e+09"), ("-1", "got -1"), ("2.5", "got 2.5")])
def test_browse_refuses_an_impossible_number_of_items_with_a_message(chromium, limit, said):
    from playwright.sync_api import expect

    with _page(chromium) as (browser, page, url):
        page.get_by_role("tab", name="Browse a benchmark").click()
        page.locator("#browse-limit input").fill(limit)
        page.locator("#browse-load").click()
        status = page.locator("#browse-status")
        expect(status).to_contain_text("whole number from 1 to 1000", timeout=10_000)
        expect(status).to_contain_text(said)
        expect(status).not_to_contain_text("Loaded")


@pytest.mark.slow
def test_browse_overview_filters_through_a_matrix_cell_opens_an_item_and_exports_the_slice(chromium):
    from playwright.sync_api import expect

    two, one = (n * len(world.SPLITS) * len(world.KINDS) for n in (2, 1))  # items per split and kind loaded
    with _page(chromium, 2400) as (browser, page, url):
        page.get_by_role("tab", name="Browse a benchmark").click()
        page.locator("#browse-limit input").fill("2")
        page.locator("#browse-load").click()
        expect(page.locator("#browse-status")).to_contain_text(f"Loaded {two} items", timeout=60_000)
        page.locator("#overview-run").click()
        expect(page.locator("#overview-note")).to_contain_text(f"{two} of {two} items", timeout=120_000)
        matrix = page.locator("#overview-matrix")
        expect(matrix).to_contain_text("fixes:")
        fixes = int(matrix.get_by_text("fixes:").inner_text().split(":")[1])
        assert fixes > 0  # SGI gets right attribute swaps the global cosine gets wrong
        matrix.get_by_text("fixes:").click()
        expect(page.locator("#overview-note")).to_contain_text(f"{fixes} of {two} items: SGI against global cosine, fixes")
        table = page.locator("#overview-table")
        cell = table.get_by_role("row").nth(1).get_by_role("gridcell").nth(1)  # the first item's id
        first_id = cell.inner_text().strip()
        cell.click()
        expect(page.locator("#overview-note")).to_contain_text(f"Opened item {first_id}", timeout=30_000)
        expect(page.locator("#browse-details")).to_contain_text(first_id, timeout=30_000)
        page.locator("#overview-export").click()
        expect(page.locator("#overview-note")).to_contain_text(f"Exported {fixes} items", timeout=30_000)
        files = page.locator("#overview-files")
        for suffix in (".csv", ".json"):
            expect(files).to_contain_text(suffix)
        csv = page.request.get(files.locator("a").first.get_attribute("href")).text()
        assert csv.startswith("item,id,category,caption 0,caption 1,image 0,image 1,global cosine,global cosine "
                              "margin,SGI,SGI margin")  # each item with its captions and pictures' names
        assert len(csv.strip().splitlines()) == fixes + 1 and first_id in csv
        page.locator("#browse-limit input").fill("1")
        page.locator("#browse-load").click()  # other items: the overview of the former ones goes
        expect(page.locator("#browse-status")).to_contain_text(f"Loaded {one} items", timeout=60_000)
        expect(page.locator("#overview-note")).not_to_contain_text("items", timeout=30_000)
        expect(page.locator("#overview-table")).to_be_hidden()  # until the new items are scored
        expect(files.locator("a")).to_have_count(0)


def test_the_tour_loads_its_example_compares_it_and_opens_each_steps_tab(chromium):
    from playwright.sync_api import expect

    from explorer.methods import tour_steps
    from explorer.world.tour import EXAMPLE

    with _page(chromium) as (browser, page, url):
        page.get_by_text("Guided tour").click()
        page.get_by_label(tour_steps()[0].title).check()
        expect(page.locator("#tour-look")).to_contain_text("global cosine gives A and B nearly the same score")
        expect(page.locator("#status")).to_contain_text("Done", timeout=60_000)  # compared without a click
        expect(page.locator("#scores")).to_contain_text("global cosine")
        expect(page.locator("#scores")).to_be_in_viewport(timeout=10_000)  # scrolled to what the step points at
        assert EXAMPLE.startswith("world: attribute swap")
        page.locator("#tour-step").scroll_into_view_if_needed()
        page.get_by_label(tour_steps()[5].title).check()  # both sides of the swap: its closed panel opened and in view
        expect(page.locator("#make-b")).to_be_in_viewport(timeout=10_000)
        expect(page.locator("#tour-look")).to_contain_text("once 'Make image B and score both sides' has run")
        page.locator("#make-b").click()  # the step's words then come from the page's 2 x 2 of its example
        expect(page.locator("#tour-look")).to_contain_text("On both pictures", timeout=60_000)
        expect(page.locator("#tour-look")).to_contain_text("(text score no)")
        page.locator("#tour-step").scroll_into_view_if_needed()
        page.get_by_label(tour_steps()[3].title).check()  # TFLocal: its tab opens and draws the comparison
        expect(page.get_by_role("tab", name="TFLocal attention")).to_have_attribute("aria-selected", "true",
                                                                                    timeout=30_000)
        expect(page.locator("#attention-a img")).to_be_visible(timeout=30_000)
        page.get_by_label(tour_steps()[1].title).check()
        expect(page.get_by_role("tab", name="Binding geometry")).to_have_attribute("aria-selected", "true",
                                                                                   timeout=30_000)
        expect(page.locator("#tour-look")).to_contain_text("Analyze the loaded model")


def test_the_downloaded_analysis_opens_offline_with_its_scores_pictures_and_figures(chromium, tmp_path):
    from playwright.sync_api import expect

    with _page(chromium) as (browser, page, url):
        _compare(page, _scene(tmp_path), RIGHT, WRONG)
        page.locator("#report").click()
        files = page.locator("#report-files")
        expect(files).to_contain_text(".html", timeout=30_000)
        expect(files.locator("a")).to_have_count(2, timeout=60_000)  # the HTML and the JSON
        links = [files.locator("a").nth(i).get_attribute("href") for i in range(2)]
        saved = tmp_path / "analysis.html"
        saved.write_text(next(page.request.get(h).text() for h in links if ".html" in h))
        numbers = next(page.request.get(h).json() for h in links if ".json" in h)
        assert numbers["captions"] == {"A": RIGHT, "B": WRONG} and len(numbers["scores"]) == 4

        offline = browser.new_context()
        offline.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:")
                      else route.abort())  # nothing but the file itself may load
        report = offline.new_page()
        report.goto(saved.as_uri())
        expect(report.locator("table")).to_contain_text("global cosine")
        expect(report.locator(".js-plotly-plot")).to_have_count(3)  # the heat map and both trees, drawn offline
        assert report.locator("img").count() == 6  # SGI overlays, TFLocal maps, PowerCLIP subsets, A and B each
        assert all(report.locator("img").nth(i).evaluate("i => i.naturalWidth") > 0 for i in range(6))
        page.locator("#caption-b textarea").fill(WRONG + " on a grey floor")  # another comparison: the report goes
        expect(files.locator("a")).to_have_count(0, timeout=30_000)


@pytest.mark.slow
def _settled(locator, wait_ms: int = 1000, tries: int = 30) -> str:
    """The locator's text once two reads ``wait_ms`` apart agree: a table read while the page redraws it can hold
    a half-drawn row."""
    before = locator.inner_text()
    for _ in range(tries):
        locator.page.wait_for_timeout(wait_ms)
        now = locator.inner_text()
        if now == before:
            return now
        before = now
    return before


def test_a_shared_link_opens_the_same_analysis_on_the_same_tab(chromium):
    from playwright.sync_api import expect

    from explorer.world.examples import examples

    example = examples()[0]
    with _page(chromium) as (browser, first, url):
        first.get_by_text(example.name, exact=True).first.click()
        expect(first.locator("#caption-a textarea")).to_have_value(example.caption_a)
        first.locator("#caption-b textarea").fill(example.caption_b + " on a grey floor")  # an edit to carry over
        first.locator("#run").click()
        expect(first.locator("#status")).to_contain_text("Done", timeout=60_000)
        first.get_by_role("tab", name="PowerCLIP").click()
        link = first.locator("#share-link a")
        expect(link).to_have_attribute("href", re.compile(r"tab=powerclip"), timeout=30_000)
        href = link.get_attribute("href")
        first.get_by_role("tab", name="Compare captions").click()
        expect(first.locator("#status")).to_contain_text("Done", timeout=60_000)
        _settled(first.locator("#scores"))  # drawn whole, not mid-redraw
        # the scores from the table's cells: the status timer over a table being redrawn ("1.3s") is no score
        cells = [t.strip() for t in first.locator("#scores").get_by_role("gridcell").all_inner_texts()]
        scores = [t for t in cells if re.fullmatch(r"-?\d+\.\d+", t)]
        assert len(scores) >= 6  # the global cosine's and SGI's A, B and A - B at least

        second = browser.new_page(viewport={"width": 1400, "height": 1800})
        second.goto(url.rstrip("/") + "/" + href)
        expect(second.get_by_role("tab", name="PowerCLIP")).to_have_attribute("aria-selected", "true",
                                                                                       timeout=30_000)
        expect(second.locator("#powerclip-table")).to_contain_text("on a grey floor", timeout=60_000)
        second.get_by_role("tab", name="Compare captions").click()
        expect(second.locator("#caption-b textarea")).to_have_value(example.caption_b + " on a grey floor")
        for value in scores:  # every score of the first page's table
            expect(second.locator("#scores")).to_contain_text(value, timeout=60_000)

        third = browser.new_page()
        third.goto(url.rstrip("/") + "/?example=nonesuch&a=x&b=y")
        expect(third.locator("#share-link")).to_contain_text("no example called 'nonesuch'", timeout=30_000)


def test_where_the_model_looks_draws_both_maps_and_switches_to_sgis_crop_for_a_segment(chromium, tmp_path):
    from playwright.sync_api import expect

    with _page(chromium) as (browser, page, url):
        _compare(page, _scene(tmp_path), RIGHT, WRONG)
        page.get_by_role("tab", name="Where the model looks").click()
        expect(page.locator("#looks-note")).to_contain_text("rollout", timeout=60_000)
        maps = page.locator("#looks-maps .js-plotly-plot")
        expect(maps.locator("image")).to_have_count(2, timeout=30_000)  # A's map and B's, a figure each
        a, b = (maps.nth(i).bounding_box() for i in range(2))
        assert b["x"] >= a["x"] + a["width"] - 1 and abs(a["y"] - b["y"]) < 5  # side by side on a desktop
        expect(maps.first).to_contain_text("relevance to the cosine")  # the colour bar's title
        expect(page.locator("#looks-tokens .share")).to_have_count(14)  # "a red square and a blue circle", A and B
        first = maps.first.evaluate("el => el.data[0].source")
        page.set_viewport_size({"width": 390, "height": 844})  # a phone: B's map below A's, each as wide as before
        page.wait_for_function("() => { const m = document.querySelectorAll('#looks-maps .js-plotly-plot');"
                               " return m[1].getBoundingClientRect().top >= m[0].getBoundingClientRect().bottom - 1; }")
        assert maps.first.bounding_box()["width"] >= 300
        page.set_viewport_size({"width": 1400, "height": 1800})

        page.locator("#looks-segment input").click()
        page.get_by_role("option", name=re.compile(r"^segment 1 ")).click()
        page.get_by_label("SGI's chosen crop").check()  # one click: the same segment as SGI sees it
        expect(page.locator("#looks-reading")).to_contain_text("inside the crop SGI chose", timeout=60_000)
        expect(maps.first).to_contain_text("inside SGI's crop")
        expect(maps.locator("image")).to_have_count(2)
        expect(maps.first).to_contain_text("a red square")
        expect(page.locator("#looks-maps")).not_to_contain_text("No map")
        assert maps.first.evaluate("el => el.data[0].source") != first


@pytest.mark.slow
def test_the_binding_readings_show_value_chance_and_verdict_on_a_phone(chromium):
    """At 390 px every column of the readings (a value beside its chance and its verdict) lies inside the screen."""
    from playwright.sync_api import expect

    with _page(chromium) as (browser, page, url):
        page.set_viewport_size({"width": 390, "height": 844})
        expect(page.locator("#run")).to_be_visible(timeout=60_000)  # the page drawn, its tabs laid out for a phone
        open_tab(page, "Binding geometry")
        table = page.locator("#binding-table")
        expect(page.locator("#binding-run")).to_be_visible()
        expect(table).to_be_hidden()  # no empty placeholder table before a run
        page.locator("#binding-run").click()
        expect(table).to_contain_text("probe: objects", timeout=120_000)
        for header in ("reading", "value", "chance", "verdict"):
            box = table.locator("th", has_text=header).first.bounding_box()
            assert box["width"] >= 40 and box["x"] + box["width"] <= 390, header
