"""In a real browser at 1440 and 390 px: every picture panel of the page shows its whole picture inside its frame."""

import pytest
from PIL import Image, ImageDraw

from tests.app_server import running_app
from tests.ui.test_browser import CHROMIUM, FLAGS

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH: `./run test` installs Debian's chromium when run as root"),
]

# each picture block (a label, then the picture): the block's box, the picture's box and the picture's own size
PANELS = """() => Array.from(document.querySelectorAll('.block')).filter(b => b.offsetParent !== null)
  .filter(b => b.querySelector(':scope > .image-container img')).map(b => {
    const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
    const img = b.querySelector(':scope > .image-container img');
    return {id: b.id, block: box(b), picture: box(img), natural: [img.naturalWidth, img.naturalHeight]}; })"""


def clipped(panels: list[dict]) -> list[str]:
    """The panels whose picture sticks out of its block (the block hides what is past its edges) or is drawn at
    another shape than its own (squeezed or stretched), each as a line saying how."""
    bad = []
    for p in panels:
        (bl, bt, br, bb), (pl, pt, pr, pb) = p["block"], p["picture"]
        out = max(bl - pl, bt - pt, pr - br, pb - bb)
        if out > 1:
            bad.append(f"{p['id']}: the picture reaches {out:.0f} px past its frame {p}")
        width, height = p["natural"]
        if width and height and pr > pl and pb > pt and abs((pr - pl) / (pb - pt) - width / height) > 0.03 * width / height:
            bad.append(f"{p['id']}: drawn {pr - pl:.0f} x {pb - pt:.0f}, its picture is {width} x {height}")
    return bad


# the SGI heat map's caption titles and its segments' names (left, right; a name with its caption's block), its box
HEAT_LABELS = """() => { const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.right]; };
  const heat = document.querySelector('#heatmap');
  const axis = t => t.closest('g.subplot') ? t.closest('g.subplot').getAttribute('class') : '';
  return {block: box(heat), titles: Array.from(heat.querySelectorAll('g.annotation-text-g text')).map(box),
          ticks: Array.from(heat.querySelectorAll('.xaxislayer-above text')).map(t => [...box(t), axis(t)])}; }"""


def test_the_clip_check_fails_on_a_picture_pushed_past_its_frame():
    pushed = {"id": "image-read", "block": [0, 0, 600, 260], "picture": [90, 27, 510, 287], "natural": [1600, 1000]}
    fits = {"id": "model-sees", "block": [0, 0, 600, 220], "picture": [205, 27, 395, 217], "natural": [448, 448]}
    assert clipped([fits]) == [] and "27 px past its frame" in clipped([pushed, fits])[0]


def _slide(path) -> None:
    """A 1600 x 900 slide with a shape at each side, as a teacher makes one."""
    slide = Image.new("RGB", (1600, 900), "white")
    draw = ImageDraw.Draw(slide)
    draw.rectangle((60, 350, 260, 550), fill=(220, 40, 40))
    draw.ellipse((1340, 350, 1540, 550), fill=(40, 60, 220))
    slide.save(path)


def _panels_fit(page, wanted: set[str]) -> None:
    page.wait_for_timeout(800)  # the layout settled at the new width
    panels = page.evaluate(PANELS)
    assert wanted <= {p["id"] for p in panels}, panels
    assert not clipped(panels), clipped(panels)


@pytest.mark.slow
def test_every_picture_panel_shows_its_whole_picture_at_1440_and_390_px(embedded, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    slide = tmp_path / "slide.png"
    _slide(slide)
    main = {"image-read", "model-sees", "overlay-a", "overlay-b"}
    with running_app(embedded, methods=["global", "sgi"]) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.goto(url)
        page.locator("#upload input[type=file]").set_input_files(str(slide))
        page.locator("#caption-a textarea").fill("a red square and a blue circle")
        page.locator("#caption-b textarea").fill("a blue square and a red circle")
        page.locator("#run").click()
        expect(page.locator("#status")).to_contain_text("Done", timeout=120_000)
        expect(page.locator("#model-sees img")).to_have_count(1, timeout=30_000)
        page.wait_for_function("document.querySelectorAll('#heatmap .xaxislayer-above text').length >= 4",
                               timeout=30_000)  # the heat map drawn: both captions' segments named
        for width in (1440, 390):
            page.set_viewport_size({"width": width, "height": 900})
            _panels_fit(page, main)
            heat = page.evaluate(HEAT_LABELS)  # its titles whole, its segments' names apart
            (left, right), rows = heat["block"], {}
            assert heat["titles"] and all(left - 1 <= a and b <= right + 1 for a, b in heat["titles"]), heat
            for a, b, block in heat["ticks"]:  # each caption's block: a row of names
                rows.setdefault(block, []).append((a, b))
            assert len(rows) == 2 and all(a[1] <= b[0] + 1 for ticks in rows.values()
                                          for a, b in zip(sorted(ticks), sorted(ticks)[1:])), heat
        page.set_viewport_size({"width": 1440, "height": 900})
        page.get_by_role("tab", name="Browse a benchmark").click()
        page.locator("#browse-limit input").fill("2")
        page.locator("#browse-load").click()
        expect(page.locator("#browse-image-1 img")).to_have_count(1, timeout=120_000)
        for width in (1440, 390):
            page.set_viewport_size({"width": width, "height": 900})
            _panels_fit(page, {"browse-image-0", "browse-image-1"})
        browser.close()
