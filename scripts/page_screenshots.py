"""Screenshots of every tab of the page, at a desktop and a phone width, as a teacher would see them.

The page runs in this process on the embedded model; headless Chromium (Debian's) visits it, compares the
red-square / blue-circle scene, and saves ``TAB-WIDTH.png`` for each tab in ``--out``.

    python scripts/page_screenshots.py [--out docs/img/page] [--widths 1440 390]
"""

from __future__ import annotations

import argparse
import logging
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from explorer import world# noqa: E402
from explorer.models.encoders import DualEncoder  # noqa: E402
from tests.app_server import running_app  # noqa: E402
from tests.ui.test_browser import FLAGS, open_tab  # noqa: E402

log = logging.getLogger("page_screenshots")
RIGHT, WRONG = "a red square and a blue circle", "a blue square and a red circle"
TABS = {"compare": "Compare captions", "tflocal": "TFLocal attention", "powerclip": "PowerCLIP powerset",
        "looks": "Where the model looks", "browse": "Browse a benchmark", "binding": "Binding geometry"}


def scene(folder: Path) -> Path:
    path = folder / "scene.png"
    world.Scene((world.WorldObject("red", "square", "large", 0.27, 0.3),
                 world.WorldObject("blue", "circle", "large", 0.72, 0.7))).render(128).save(path)
    return path


def shoot(url: str, chromium: str, width: int, picture: Path, out: Path) -> list[Path]:
    """Every tab at ``width`` px after one comparison; the paths written."""
    from playwright.sync_api import expect, sync_playwright

    written = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=FLAGS)
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.goto(url)
        page.locator("#upload input[type=file]").set_input_files(str(picture))
        page.locator("#caption-a textarea").fill(RIGHT)
        page.locator("#caption-b textarea").fill(WRONG)
        page.locator("#run").click()
        expect(page.locator("#status")).to_contain_text("Done", timeout=120_000)
        for name, tab in TABS.items():
            open_tab(page, tab)
            if name == "browse":
                # 5 per split and kind: all four methods score them in seconds
                page.locator("#browse-limit input").fill("5")
                page.locator("#browse-load").click()
                expect(page.locator("#browse-details")).to_contain_text("verdict", timeout=120_000)
                page.locator("#overview-run").click()
                items = 5 * len(world.SPLITS) * len(world.KINDS)
                expect(page.locator("#overview-note")).to_contain_text(f"of {items} items", timeout=300_000)
            elif name == "looks":
                expect(page.locator("#looks-maps .js-plotly-plot")).to_have_count(2, timeout=180_000)  # A and B
            elif name == "binding":
                page.locator("#binding-run").click()
                expect(page.locator("#binding-mds .js-plotly-plot")).to_be_visible(timeout=180_000)
            page.wait_for_timeout(2500)  # the tab's pictures drawn and sent
            page.mouse.wheel(0, 20_000)  # images load lazily: scrolled to once, each is fetched
            page.wait_for_timeout(1000)
            page.wait_for_function("Array.from(document.images).every(i => i.complete)")
            page.mouse.wheel(0, -20_000)
            path = out / f"{name}-{width}.png"
            page.screenshot(path=str(path), full_page=True)
            written.append(path)
        browser.close()
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("docs/img/page"))
    parser.add_argument("--widths", type=int, nargs="+", default=[1440, 390])
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        sys.exit("no chromium on PATH: install Debian's chromium (./run test does, as root)")
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, running_app(DualEncoder()) as url:
        picture = scene(Path(tmp))
        for width in args.widths:
            for path in shoot(url, chromium, width, picture, args.out):
                log.info("wrote %s", path)


if __name__ == "__main__":
    main()
