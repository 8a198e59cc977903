"""In a real browser: shapes drawn on the pad with the mouse, captions proposed from them, image B made and the 2 x 2
read."""

import math
import re

import pytest

from explorer import world
from explorer.ui.pad import CANVAS
from tests.app_server import running_app
from tests.ui.test_browser import CHROMIUM, FLAGS

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH: `./run test` installs Debian's chromium when run as root"),
]
PANEL = "Draw a picture, have captions proposed"
# the pad paints with WebGL: software GL (SwiftShader) instead of --disable-gpu, so headless Chromium can draw
PAD_FLAGS = [flag for flag in FLAGS if flag != "--disable-gpu"] + ["--use-angle=swiftshader",
                                                                     "--enable-unsafe-swiftshader"]
SQUARE = (60, 110, 130, 180)  # left, top, right, bottom on the 300 x 300 canvas
DISC = (215, 145, 36)  # centre x, centre y, radius
DRAWING = re.compile(r"drawing-[0-9a-f]{16}")  # the name of a file the pad writes


def square_rows(left: int, top: int, right: int, bottom: int, step: int = 6) -> list[tuple[tuple, tuple]]:
    """A filled square as horizontal brush strokes."""
    return [((left, y), (right, y)) for y in range(top, bottom + 1, step)]


def disc_rows(cx: int, cy: int, r: int, step: int = 6) -> list[tuple[tuple, tuple]]:
    """A filled disc as horizontal brush strokes, each a chord a brush's half-width inside the circle."""
    rows = []
    for y in range(cy - r + 6, cy + r - 5, step):
        half = math.sqrt(max(r * r - (y - cy) ** 2, 0)) - 6
        if half > 0:
            rows.append(((cx - half, y), (cx + half, y)))
    return rows


class Pad:
    """The pad's canvas in page coordinates: the drawing sits centred in the editor's canvas at the shown zoom."""

    def __init__(self, page):
        self.page = page
        box = page.locator("#pad .pixi-target canvas").bounding_box()
        zoom = re.search(r"(\d+)%", page.locator("#pad").inner_text())
        self.zoom = int(zoom.group(1)) / 100 if zoom else 1.0
        self.centre = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)

    def at(self, x: float, y: float) -> tuple[float, float]:
        return (self.centre[0] + (x - CANVAS / 2) * self.zoom, self.centre[1] + (y - CANVAS / 2) * self.zoom)

    def colour(self, name: str) -> None:
        """Pick a world colour from the brush's palette."""
        r, g, b = world.COLORS[name]
        self.page.locator("#pad button[aria-label='Color']").click()
        self.page.locator(f"#pad menu.swatch button[style*='rgb({r}, {g}, {b})']").click()
        self.page.locator("#pad button[aria-label='Brush']").click()  # back to the brush, the palette closed

    def stroke(self, rows: list[tuple[tuple, tuple]]) -> None:
        """One mouse stroke through the rows, back and forth, as a hand fills a shape."""
        mouse = self.page.mouse
        mouse.move(*self.at(*rows[0][0]))
        mouse.down()
        for n, (start, end) in enumerate(rows):
            a, b = (start, end) if n % 2 == 0 else (end, start)
            mouse.move(*self.at(*a), steps=1)
            mouse.move(*self.at(*b), steps=4)
        mouse.up()
        # a tool change commits the stroke: on a loaded machine the editor can miss the pointer-up and wait for one
        self.page.locator("#pad button[aria-label='Erase']").click()
        self.page.locator("#pad button[aria-label='Brush']").click()


def draw_propose_swap(page) -> None:
    """Open the panel, draw a red square and a blue circle with the mouse, propose captions, make image B: each step
    waits for what the page says of it."""
    from playwright.sync_api import expect

    page.get_by_text(PANEL).click()
    expect(page.locator("#pad button[aria-label='Color']")).to_be_visible(timeout=30_000)
    page.locator("#pad").scroll_into_view_if_needed()
    pad = Pad(page)
    pad.colour("red")
    pad.stroke(square_rows(*SQUARE))
    image = page.locator("#upload")  # the page's image: the pad writes each drawing as a file named by its content
    expect(image).to_contain_text(DRAWING, timeout=60_000)  # the first stroke reaches the page
    first = DRAWING.search(image.inner_text()).group(0)
    pad.colour("blue")
    pad.stroke(disc_rows(*DISC))
    expect(image).to_contain_text(re.compile(f"(?!{first})" + DRAWING.pattern), timeout=60_000)  # the second too
    expect(page.locator("#image-read img")).to_have_count(1, timeout=60_000)
    page.locator("#propose").click()
    expect(page.locator("#proposal")).to_contain_text("Proposed", timeout=120_000)
    page.locator("#make-b").click()
    expect(page.locator("#swap-note")).to_contain_text("Image B:", timeout=180_000)
    try:
        expect(page.locator("#swap-b img")).to_have_count(1, timeout=30_000)
    except AssertionError as missing:  # say what the page shows instead: the note, its image and image B's panel
        shown = {part: page.locator(part).inner_text()[:300] for part in ("#swap-note", "#upload", "#swap-b")}
        raise AssertionError(f"image B is not shown; the page shows {shown}") from missing


@pytest.fixture(scope="module")
def url(embedded):
    with running_app(embedded, methods=["global", "sgi"]) as address:
        yield address


def four_scores(page) -> dict[str, dict[str, float]]:
    """The 2 x 2's four scores of each method as the page shows them (caption and image letters, e.g. "AB")."""
    found = {}
    for grid in page.locator("#two-by-two-scores figure").all():
        label = grid.locator("figcaption strong").inner_text()
        found[label] = {cell.get_attribute("data-cell"): float(cell.inner_text().split()[0])
                        for cell in grid.locator("td").all()}
    return found


@pytest.mark.slow
@pytest.mark.parametrize("width", [1440, 390])
def test_shapes_drawn_with_the_mouse_are_proposed_swapped_and_read_in_the_2x2(url, width):
    from playwright.sync_api import expect, sync_playwright

    from tests.ui.test_browser import _fits

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=PAD_FLAGS)
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.goto(url)
        draw_propose_swap(page)
        caption_a = page.locator("#caption-a textarea").input_value()
        caption_b = page.locator("#caption-b textarea").input_value()
        assert caption_a == "a red square and a blue circle"  # named left to right, as drawn
        assert caption_b == "a blue square and a red circle"
        note = page.locator("#swap-note").inner_text()
        assert "red" in note and "blue" in note  # image B recoloured the drawn shapes
        for label in ("global cosine", "SGI"):
            expect(page.locator("#two-by-two-scores")).to_contain_text(label)
        verdicts = page.locator("#two-by-two-scores figcaption").all_inner_texts()  # 3 verdicts x 2 methods
        assert sum(v.count("\u2713") + v.count("\u2717") for v in verdicts) == 6, verdicts
        scores = four_scores(page)
        assert set(scores) == {"global cosine", "SGI"} and all(set(s) == {"AA", "AB", "BA", "BB"}
                                                                 for s in scores.values()), scores
        grids = page.locator("#two-by-two-scores").bounding_box()
        assert grids["x"] >= 0 and grids["x"] + grids["width"] <= width  # every grid on the screen
        if width > 640:
            expect(page.locator("#two-by-two")).to_contain_text("SGI")  # the verdicts' table beside the grids
            _fits(page, "#two-by-two")  # every column of the verdicts inside the table's box
        else:  # a phone: the grids alone, each with its verdicts and reason, as wide as the screen at most
            expect(page.locator("#two-by-two")).to_be_hidden()
            for grid in page.locator("#two-by-two-scores figure").all():
                box = grid.bounding_box()
                assert box["x"] >= 0 and box["x"] + box["width"] <= width
                expect(grid.locator("figcaption")).to_contain_text("prefers")
                expect(grid.locator(".reason")).not_to_be_empty()
        page.locator("#run").click()  # the same inputs compared: the page's table reads image A's own scores
        expect(page.locator("#status")).to_contain_text("Done", timeout=120_000)
        page.wait_for_timeout(1000)  # the table drawn whole
        cells = [t.strip() for t in page.locator("#scores").get_by_role("gridcell").all_inner_texts()]
        for label, four in scores.items():  # method, prefers, A, B, A - B: A and B as the 2 x 2 writes them
            at = cells.index(label)
            assert cells[at + 2:at + 4] == [f"{four['AA']:.4f}", f"{four['BA']:.4f}"], (label, cells, four)
        browser.close()
