"""Screenshots of every tab of the page and of the guided tour, as a teacher would see them: the user guide's pictures.

The page runs in this process on the embedded model; headless Chromium (Debian's) visits it, compares the shipped
example (the first of ``assets/examples/index.json``: a red square and a blue circle, and its colour swap), and saves
``TAB-WIDTH.png`` for each tab at each of ``--widths``, and the main tab alone at each of ``--phone`` widths, in
``--out`` (each PNG reduced to a 256-colour palette, a few hundred KB at most).

With ``--against NAME`` (a second model's menu entry) it shoots Browse's overview of both models instead, at each of
``--widths`` and ``--phone``: 13 world items per split and kind (208) scored by the page's model and NAME, the matrix
of B against A on the global cosine, its fixes listed and exported, and the first of them opened with both models'
readings (``browse-two-models-WIDTH.png``); ``--methods`` names the page's methods (all of them on 208 items x two
models take many minutes on 2 cores).

With ``--only pictures`` it shoots pictures as people make them, each with the captions proposed from it, its
SGI matches and the 2 x 2 (``picture-NAME-WIDTH.png``): a 1600 x 900 slide with a shape near each side, a 1200 x 800
page with small shapes, a drawing made on the pad with the mouse, and three of ``scripts/teacher_pictures.py``'s test
pictures (a titled slide, a photographed drawing, a lined page: ``--pictures titled-slide photo lined``). Where no caption is proposed, the true ones
(what the script drew) are typed, and the proposal's message stays in the picture.

    python scripts/page_screenshots.py [--out docs/img/guide] [--widths 1440] [--phone 390]
    python scripts/page_screenshots.py --only swap --methods global,sgi
    python scripts/page_screenshots.py --only pictures --methods global,sgi --phone
    python scripts/page_screenshots.py --against "world-clip-finetune (project checkpoint)" --methods global
"""

from __future__ import annotations

import argparse
import logging
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PIL import Image, ImageDraw  # noqa: E402

from explorer import world  # noqa: E402
from explorer.models.encoders import DualEncoder  # noqa: E402
from explorer.world.examples import examples  # noqa: E402
from tests.app_server import running_app  # noqa: E402
from tests.ui.test_browser import FLAGS, open_tab  # noqa: E402
from tests.ui.test_browser_swap import PAD_FLAGS, PANEL, draw_propose_swap  # noqa: E402
from tests.ui.test_browser_two_models import load_and_score_both  # noqa: E402

log = logging.getLogger("page_screenshots")
TABS = {"compare": "Compare captions", "tflocal": "TFLocal attention", "powerclip": "PowerCLIP",
        "looks": "Where the model looks", "browse": "Browse a benchmark", "binding": "Binding geometry"}
TOUR_STEP = "3. SGI matches each phrase to a region"  # the tour's step whose words read the example's comparison


def small_png(path: Path) -> None:
    """The screenshot as a 256-colour PNG: the page's flat colours survive, and the file is a few times smaller."""
    with Image.open(path) as shot:
        reduced = shot.convert("RGB").quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    reduced.save(path, optimize=True)


def _saved(page, path: Path, part: str | None = None) -> Path:
    """The whole page (or the part of it that the script ``part`` gives as [top, height]), every lazily loaded image
    fetched first, saved as a small PNG."""
    page.wait_for_timeout(2500)  # the tab's pictures drawn and sent
    page.mouse.wheel(0, 20_000)  # images load lazily: scrolled to once, each is fetched
    page.wait_for_timeout(1000)
    try:
        page.wait_for_function("Array.from(document.images).every(i => i.complete)", timeout=30_000)
    except Exception as exc:  # noqa: BLE001 (playwright's TimeoutError: the pad's own image never reports complete)
        log.warning("not every image reported complete (%s): shot as drawn", type(exc).__name__)
    page.mouse.wheel(0, -20_000)
    page.wait_for_timeout(500)
    clip = None
    if part:
        top, height = page.evaluate(part)
        clip = {"x": 0, "y": top, "width": page.viewport_size["width"], "height": height}
    page.screenshot(path=str(path), full_page=True, clip=clip)
    small_png(path)
    return path


def shoot(url: str, chromium: str, width: int, out: Path, tabs: dict[str, str], tour: bool) -> list[Path]:
    """Each of ``tabs`` at ``width`` px after one comparison of the shipped example (and the guided tour's step on
    it when ``tour``); the paths written."""
    from playwright.sync_api import expect, sync_playwright

    example = examples()[0]
    written = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=FLAGS)
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.goto(url)
        page.locator("#upload input[type=file]").set_input_files(str(example.path))
        page.locator("#caption-a textarea").fill(example.caption_a)
        page.locator("#caption-b textarea").fill(example.caption_b)
        page.locator("#run").click()
        expect(page.locator("#status")).to_contain_text("Done", timeout=120_000)
        for name, tab in tabs.items():
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
            written.append(_saved(page, out / f"{name}-{width}.png"))
        if tour:  # the tour above the tabs, opened at its SGI step: the step's words, then the main tab it opens
            page.mouse.wheel(0, -20_000)
            page.get_by_text("Guided tour, for teaching").click()
            page.locator("#tour-step").get_by_text(TOUR_STEP).click()
            expect(page.locator("#tour-look")).to_contain_text("On this picture", timeout=120_000)
            page.wait_for_timeout(2500)
            path = out / f"tour-{width}.png"
            page.screenshot(path=str(path), clip={"x": 0, "y": 0, "width": width, "height": 1400})
            small_png(path)
            written.append(path)
        browser.close()
    return written


def shoot_two_models(url: str, chromium: str, width: int, out: Path, against: str) -> Path:
    """Browse's overview of the page's model (A) and ``against`` (B) at ``width`` px: B's fixes listed and exported,
    the first opened with both models' readings."""
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=FLAGS)
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.goto(url)
        load_and_score_both(page, against=against)
        page.locator("#overview-matrix").get_by_text("fixes:").first.click()
        expect(page.locator("#overview-note")).to_contain_text("fixes", timeout=60_000)
        page.locator("#overview-export").click()
        expect(page.locator("#overview-note")).to_contain_text("Exported", timeout=60_000)
        page.locator("#overview-table").get_by_role("row").nth(1).get_by_role("gridcell").nth(1).click()
        expect(page.locator("#browse-reading-b .js-plotly-plot")).to_be_visible(timeout=120_000)
        path = _saved(page, out / f"browse-two-models-{width}.png")
        browser.close()
    return path


def shoot_swap(url: str, chromium: str, width: int, out: Path) -> Path:
    """A red square and a blue circle drawn on the pad with the mouse, the captions proposed from it and the 2 x 2 made
    from it at ``width`` px."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=PAD_FLAGS)
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.goto(url)
        draw_propose_swap(page)
        page.locator("#draw-and-swap").scroll_into_view_if_needed()
        page.wait_for_timeout(2500)  # the pictures sent and drawn (the pad's own image never reports complete)
        path = out / f"swap-{width}.png"
        page.locator("#draw-and-swap").screenshot(path=str(path))
        small_png(path)
        browser.close()
    return path


TEACHER = {"titled-slide": "slide", "photo": "photo", "lined": "lined"}  # scripts/teacher_pictures.py's looks
PICTURE_NAMES = ["slide", "page", "pad", *TEACHER]
PICTURES = {"slide": "a red square and a blue circle", "page": "a green triangle and an orange circle"}
SWAPPED = {"slide": "a blue square and a red circle", "page": "an orange triangle and a green circle"}


def teacher_picture(name: str, path: Path) -> Path:
    """The first picture of a look of ``scripts/teacher_pictures.py``'s test set; its truth as the captions to type."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import marker_measure
    import teacher_pictures

    _, _, image, truth = next(teacher_pictures.pictures("test", 1, (TEACHER[name],)))
    PICTURES[name], SWAPPED[name] = marker_measure.caption(truth), marker_measure.swapped(truth)
    image.save(path)
    return path


def made_picture(name: str, path: Path) -> Path:
    """A picture as people make one, drawn with a round brush: ``slide``, 1600 x 900 with a shape near each side;
    ``page``, 1200 x 800 paper with two small shapes; or a teacher's (``teacher_picture``): a titled slide, a
    photographed drawing, a lined page."""
    if name in TEACHER:
        return teacher_picture(name, path)
    size, shapes = {"slide": ((1600, 900), [("red", "square", (70, 330, 290, 550)),
                                             ("blue", "circle", (1330, 330, 1550, 550))]),
                    "page": ((1200, 800), [("green", "triangle", (380, 300, 470, 390)),
                                           ("orange", "circle", (700, 420, 780, 500))])}[name]
    picture = Image.new("RGB", size, (252, 252, 248))
    draw = ImageDraw.Draw(picture)
    for colour, shape, (x0, y0, x1, y1) in shapes:
        fill, line = world.COLORS[colour], max(4, (x1 - x0) // 12)
        if shape == "square":
            draw.rounded_rectangle((x0, y0, x1, y1), radius=line, fill=fill, outline=fill, width=line)
        elif shape == "circle":
            draw.ellipse((x0, y0, x1, y1), fill=fill)
        else:
            draw.polygon([((x0 + x1) / 2, y0), (x1, y1), (x0, y1)], fill=fill)
            draw.line([((x0 + x1) / 2, y0), (x1, y1), (x0, y1), ((x0 + x1) / 2, y0)], fill=fill, width=line,
                      joint="curve")
    picture.save(path)
    return path


def shoot_picture(url: str, chromium: str, width: int, out: Path, name: str) -> Path:
    """Picture ``name`` (``slide``, ``page`` or ``pad``) at ``width`` px: put on the page (uploaded, or drawn on the pad
    with the mouse), its captions proposed, compared (its SGI matches) and both sides of the swap made (the 2 x 2)."""
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=PAD_FLAGS)
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.goto(url)
        if name == "pad":
            draw_propose_swap(page)
        else:
            made = made_picture(name, Path(tempfile.mkdtemp()) / f"{name}.png")
            page.locator("#upload input[type=file]").set_input_files(str(made))
            expect(page.locator("#image-read img")).to_have_count(1, timeout=60_000)
            page.get_by_text(PANEL).click()
            page.locator("#propose").click()
            expect(page.locator("#proposal")).not_to_be_empty(timeout=120_000)
            page.wait_for_timeout(1000)
            if not page.locator("#caption-b textarea").input_value():  # no swap proposed: the truth typed
                page.locator("#caption-a textarea").fill(PICTURES[name])
                page.locator("#caption-b textarea").fill(SWAPPED[name])
                page.wait_for_timeout(1000)  # the typed captions settled before image B is made of them
            page.locator("#make-b").click()
            expect(page.locator("#swap-note")).not_to_be_empty(timeout=180_000)
        page.locator("#run").click()
        expect(page.locator("#status")).to_contain_text("Done", timeout=180_000)
        # every answer in: no block still shows its loading veil (a late redraw of the pad's picture on a busy machine)
        try:
            page.wait_for_function("!document.querySelector('.wrap.translucent:not(.hide)')", timeout=60_000)
        except Exception as exc:  # noqa: BLE001 (playwright's TimeoutError: shot as it is, the veiled blocks named)
            veiled = page.evaluate("Array.from(document.querySelectorAll('.wrap.translucent:not(.hide)'))"
                                   ".map(w => (w.closest('[id]') || {}).id)")
            log.warning("%s: still loading after 60 s: %s", type(exc).__name__, veiled)
        # a phone's whole page is taller than Chromium draws in one shot (its top comes again under it): from SGI's
        # matches to the end of the swap panel there
        part = ("(() => { const top = document.querySelector('#overlay-a').getBoundingClientRect().top;"
                " const end = document.querySelector('#draw-and-swap').getBoundingClientRect().bottom;"
                " return [top + window.scrollY - 8, end - top + 16]; })()")
        for overlay in ("#overlay-a img", "#overlay-b img"):  # lazily loaded: each fetched in view before the shot
            page.locator(overlay).scroll_into_view_if_needed()
            page.wait_for_timeout(500)
        path = _saved(page, out / f"picture-{name}-{width}.png", part if width < 640 else None)
        browser.close()
    return path


def setup(out: Path) -> str:
    """Logging on, ``out`` made, and the path of Debian's chromium (the script exits saying why where it has none)."""
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        sys.exit("no chromium on PATH: install Debian's chromium (./run test does, as root)")
    out.mkdir(parents=True, exist_ok=True)
    return chromium


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("docs/img/guide"))
    parser.add_argument("--widths", type=int, nargs="*", default=[1440], help="every tab and the tour at these widths")
    parser.add_argument("--phone", type=int, nargs="*", default=[390], help="the main tab alone at these widths")
    parser.add_argument("--only", nargs="*", choices=[*TABS, "tour", "swap", "pictures"],
                        help="only these of the wide pictures (swap: a drawing, the proposal and the 2 x 2, every width;"
                             " pictures: a slide, a page of small shapes and a pad drawing, each proposed and swapped)")
    parser.add_argument("--pictures", nargs="*", choices=PICTURE_NAMES, default=PICTURE_NAMES,
                        help="which pictures --only pictures shoots")
    parser.add_argument("--against", metavar="MODEL", help="Browse's overview against this second model instead")
    parser.add_argument("--methods", help="comma-separated page methods (default: the page's own)")
    args = parser.parse_args()
    chromium = setup(args.out)
    wanted = set(args.only or [*TABS, "tour"])
    methods = args.methods.split(",") if args.methods else None
    if args.against:
        with running_app(DualEncoder(), methods=methods) as url:
            for width in [*args.widths, *args.phone]:
                path = shoot_two_models(url, chromium, width, args.out, args.against)
                log.info("wrote %s (%d KB)", path, path.stat().st_size // 1024)
        return
    with running_app(DualEncoder(), methods=methods) as url:
        if "swap" in wanted:
            for width in [*args.widths, *args.phone]:
                log.info("wrote %s", shoot_swap(url, chromium, width, args.out))
        if "pictures" in wanted:
            for width in [*args.widths, *args.phone]:
                for name in args.pictures:
                    log.info("wrote %s", shoot_picture(url, chromium, width, args.out, name))
        shots = [(w, {k: v for k, v in TABS.items() if k in wanted}, "tour" in wanted) for w in args.widths]
        shots += [(w, {"compare": TABS["compare"]}, False) for w in args.phone if "compare" in wanted]
        for width, tabs, tour in [shot for shot in shots if shot[1] or shot[2]]:
            for path in shoot(url, chromium, width, args.out, tabs, tour):
                log.info("wrote %s (%d KB)", path, path.stat().st_size // 1024)


if __name__ == "__main__":
    main()
