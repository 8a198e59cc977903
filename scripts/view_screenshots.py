"""Screenshots of "What the model sees" on the Compare tab for a wide drawing, a small drawing and a photo.

The page runs in this process on the embedded model; headless Chromium uploads each picture, compares two captions,
and saves the tab's first screen as ``view-PICTURE-WIDTH.png`` in ``--out``: the wide drawing is the first item of
the ``wide`` test split, the small one the first single shape of ``small`` (a naming item) that the content view
enlarges, the photo scikit-image's ``coffee`` (600 x 400).

    python scripts/view_screenshots.py [--out docs/img/guide] [--widths 1440 390]
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PIL import Image  # noqa: E402
from skimage import data  # noqa: E402

from explorer import world  # noqa: E402
from explorer.images.fit import fit_of  # noqa: E402
from explorer.models.encoders import DualEncoder  # noqa: E402
from scripts.page_screenshots import setup, small_png  # noqa: E402
from tests.app_server import running_app  # noqa: E402
from tests.ui.test_browser import FLAGS  # noqa: E402

log = logging.getLogger("view_screenshots")


def pictures(folder: Path) -> dict[str, tuple[Path, str, str]]:
    """Each picture's file and two captions: a wide drawing, a small one, a photo."""
    out = {}
    wide = world.swap_items("wide", "attribute", 1)[0]
    small = next(it for it in world.naming_items("small", "shape", 20) if fit_of(it.pictures()[0]).how == "content")
    for name, item in (("wide", wide), ("small", small)):
        path = folder / f"{name}.png"
        item.pictures()[0].save(path)
        out[name] = (path, *item.captions)
    photo = folder / "photo.png"
    Image.fromarray(data.coffee()).save(photo)
    out["photo"] = (photo, "a white cup on a red table", "a red cup on a white table")
    return out


def shoot(url: str, chromium: str, width: int, out: Path, name: str, picture: tuple[Path, str, str]) -> Path:
    from playwright.sync_api import expect, sync_playwright

    path, caption_a, caption_b = picture
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=FLAGS)
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.goto(url)
        page.locator("#upload input[type=file]").set_input_files(str(path))
        page.locator("#caption-a textarea").fill(caption_a)
        page.locator("#caption-b textarea").fill(caption_b)
        page.locator("#run").click()
        expect(page.locator("#status")).to_contain_text("Done", timeout=180_000)
        expect(page.locator("#model-sees-note")).to_contain_text("read", timeout=60_000)
        page.locator("#model-sees").scroll_into_view_if_needed()
        page.wait_for_timeout(2000)
        page.evaluate("window.scrollTo(0, 0)")  # boxes in page coordinates: measured from the top
        page.wait_for_timeout(500)
        shot = out / f"view-{name}-{width}.png"
        top = page.locator("#upload").bounding_box()["y"]
        bottom = page.locator("#model-sees-note").bounding_box()
        height = bottom["y"] + bottom["height"] - top + 20
        page.screenshot(path=str(shot), clip={"x": 0, "y": top, "width": width, "height": height}, full_page=True)
        small_png(shot)
        browser.close()
    return shot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("docs/img/guide"))
    parser.add_argument("--widths", type=int, nargs="*", default=[1440, 390])
    args = parser.parse_args()
    chromium = setup(args.out)
    with tempfile.TemporaryDirectory() as folder, running_app(DualEncoder()) as url:
        for name, picture in pictures(Path(folder)).items():
            for width in args.widths:
                path = shoot(url, chromium, width, args.out, name, picture)
                log.info("wrote %s (%d KB)", path, path.stat().st_size // 1024)


if __name__ == "__main__":
    main()
