"""Pictures as teachers bring them, no model here was made on: two of the world's shapes a picture, in six looks
at the sizes people bring (300 to 4000 px):

- ``clipart``: flat fills with a thick outline, dark or in the fill's own colour (darker, some with paper between);
- ``slide``: a 1920 x 1080 or 1600 x 900 slide with a title line, sometimes a rule under it, and a footer;
- ``photo``: a marker drawing on a sheet photographed on a table: the sheet turned, its shadow, uneven light, JPEG;
- ``lined``: marker drawings on lined (blue rules, a red margin) or squared notebook paper;
- ``overlap``: two flat shapes, the second drawn over a part of the first;
- ``crayon``: shapes coloured in crayon strokes, with gaps and grain.

Two sets with different seeds: ``val`` (to choose constants on) and ``test`` (to report, never tuned on). Each
picture comes with its truth (``marker_drawings.Drawn``): every object's colour, shape, centre and box in the
picture's own pixels.

    python scripts/teacher_pictures.py --set test --per-look 24 --out /tmp/teacher   # writes PNGs/JPEGs and truth.json
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path
from typing import Callable

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from marker_drawings import INKS, PAPERS, Drawn, draw_object, outline, write  # noqa: E402

from explorer.world.palette import COLORS, SHAPES  # noqa: E402

SEEDS = {"val": 7801, "test": 7802}  # the two sets never share a picture
TITLES = ("Shapes and colours", "Which one is red?", "Colours of the week", "Lesson 4: shapes", "Find the star",
          "Sorting by colour", "Our shapes today", "Circles, squares and stars")
FOOTERS = ("Year 2 science", "Ms Lee, room 12", "Shapes unit", "Maths club", "Art and colour")
FONTS = ("DejaVuSans-Bold.ttf", "DejaVuSans.ttf", "LiberationSans-Bold.ttf", "DejaVuSerif-Bold.ttf")
TABLES = ((150, 105, 65), (120, 80, 50), (95, 95, 100), (70, 60, 55), (165, 130, 95))  # wood and grey desks


def _font(rng: np.random.Generator, size: int) -> ImageFont.ImageFont:
    for name in (FONTS[rng.integers(len(FONTS))], "DejaVuSans.ttf"):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default(size)


def _paint(color: str, rng: np.random.Generator) -> tuple[int, int, int]:
    rgb = np.clip(np.add(COLORS[color], rng.integers(-12, 13, 3)), 0, 255)
    return tuple(int(v) for v in rgb)  # type: ignore[return-value]


def _pair(rng: np.random.Generator) -> tuple[list[str], list[str]]:
    return [str(c) for c in rng.choice(INKS, 2, replace=False)], [str(s) for s in rng.choice(SHAPES, 2, replace=False)]


def _flat(canvas: Image.Image, color: str, shape: str, centre: tuple[float, float], side: float,
          rng: np.random.Generator, line: tuple[int, int, int] | None = None, width: int = 0,
          gap: int = 0) -> Drawn:
    """A flat shape (clean corners), with an outline of ``width`` in ``line`` (``gap`` of paper between, if any)."""
    points = outline(shape, *centre, side / 2, np.random.default_rng(int(rng.integers(1 << 30))))
    mask = Image.new("L", canvas.size, 0)
    draw = ImageDraw.Draw(mask)
    draw.polygon(points, fill=255)
    fill = _paint(color, rng)
    if line is not None:
        canvas.paste(line, mask=mask)
        inner = Image.fromarray(np.asarray(mask.filter(ImageFilter.MinFilter(2 * (width + gap) + 1))))
        if gap:
            canvas.paste(canvas.getpixel((0, 0)), mask=Image.fromarray(
                np.asarray(mask.filter(ImageFilter.MinFilter(2 * width + 1)))))
        canvas.paste(fill, mask=inner)
    else:
        canvas.paste(fill, mask=mask)
    ys, xs = np.nonzero(np.asarray(mask))
    return Drawn(color, shape, (float(centre[0]), float(centre[1])),
                 (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1))


def _places(size: tuple[int, int], side: float, rng: np.random.Generator, top: float = 0.0,
            bottom: float = 0.0) -> list[tuple[float, float]]:
    """Two centres, the first in the left half, the second in the right, between ``top`` and ``bottom`` shares."""
    w, h = size
    y_lo, y_hi = top * h + side / 2 + 0.03 * h, (1 - bottom) * h - side / 2 - 0.03 * h
    xs = (rng.uniform(0.12 * w + side / 2, 0.5 * w - side / 2 - 0.02 * w),
          rng.uniform(0.5 * w + side / 2 + 0.02 * w, 0.88 * w - side / 2))
    return [(x, rng.uniform(y_lo, max(y_lo + 1, y_hi))) for x in xs]


def clipart(rng: np.random.Generator) -> tuple[Image.Image, list[Drawn]]:
    """Flat fills with a thick outline: dark (half the pictures) or the fill's own colour, darker."""
    n = int(rng.choice((300, 512, 800, 1024, 1600)))
    canvas = Image.new("RGB", (n, n), PAPERS[rng.integers(len(PAPERS))])
    colors, shapes = _pair(rng)
    side = rng.uniform(0.28, 0.36) * n
    dark = rng.random() < 0.5
    drawn = []
    for color, shape, centre in zip(colors, shapes, _places(canvas.size, side, rng)):
        width = max(2, int(rng.uniform(0.03, 0.06) * side))
        line = tuple(int(v) for v in rng.integers(10, 50, 3)) if dark else \
            tuple(int(v * 0.65) for v in _paint(color, rng))
        gap = 0 if dark or rng.random() < 0.5 else max(1, width // 2)
        drawn.append(_flat(canvas, color, shape, centre, side, rng, line, width, gap))  # type: ignore[arg-type]
    return canvas, drawn


def slide(rng: np.random.Generator) -> tuple[Image.Image, list[Drawn]]:
    """A slide: a title line at its top (a rule under it in half), two shapes (outlined in a third), a footer."""
    w, h = (1920, 1080) if rng.random() < 0.6 else (1600, 900)
    canvas = Image.new("RGB", (w, h), PAPERS[rng.integers(len(PAPERS))])
    draw = ImageDraw.Draw(canvas)
    ink = tuple(int(v) for v in rng.integers(0, 60, 3))
    title = _font(rng, int(rng.uniform(0.05, 0.075) * h))
    draw.text((int(rng.uniform(0.05, 0.1) * w), int(0.05 * h)), str(rng.choice(TITLES)), fill=ink, font=title)
    if rng.random() < 0.5:
        y = int(0.16 * h)
        draw.line((0.05 * w, y, 0.95 * w, y), fill=_paint(str(rng.choice(INKS)), rng), width=max(2, h // 300))
    small = _font(rng, int(rng.uniform(0.022, 0.03) * h))
    grey = tuple(int(v) for v in rng.integers(80, 130, 3))
    draw.text((int(0.05 * w), int(0.93 * h)), str(rng.choice(FOOTERS)), fill=grey, font=small)
    draw.text((int(0.93 * w), int(0.93 * h)), str(int(rng.integers(2, 30))), fill=grey, font=small)
    colors, shapes = _pair(rng)
    side = rng.uniform(0.24, 0.34) * h
    lined = rng.random() < 0.33
    drawn = [_flat(canvas, c, s, p, side, rng, (20, 20, 20) if lined else None, max(2, int(0.03 * side)))
             for c, s, p in zip(colors, shapes, _places(canvas.size, side, rng, top=0.2, bottom=0.1))]
    return canvas, drawn


def _marker(canvas: Image.Image, rng: np.random.Generator, side_share: tuple[float, float],
            top: float = 0.0) -> list[Drawn]:
    """Two marker-drawn objects (``marker_drawings.draw_object``) on ``canvas``."""
    w, h = canvas.size
    colors, shapes = _pair(rng)
    side = rng.uniform(*side_share) * min(w, h)
    width = max(3, int(round(rng.uniform(0.014, 0.022) * min(w, h))))
    return [draw_object(canvas, c, s, p, side, width, rng)
            for c, s, p in zip(colors, shapes, _places(canvas.size, side + 2 * width, rng, top=top))]


def photo(rng: np.random.Generator) -> tuple[Image.Image, list[Drawn]]:
    """A marker drawing on a sheet, photographed on a table: turned up to 12 degrees, a shadow, light falling off
    across the picture, grain and a JPEG round trip."""
    w, h = [(1024, 768), (1600, 1200), (2048, 1536), (4000, 3000)][int(rng.choice(4, p=(0.3, 0.3, 0.25, 0.15)))]
    sheet_h = int(rng.uniform(0.7, 0.82) * h)
    sheet = Image.new("RGB", (int(sheet_h * 1.35), sheet_h), PAPERS[rng.integers(len(PAPERS))])
    drawn = _marker(sheet, rng, (0.3, 0.4))
    turn = rng.uniform(-12, 12)
    table = np.asarray(TABLES[rng.integers(len(TABLES))], np.float32)
    grain = rng.normal(0, 1, (h // 16 + 1, w // 16 + 1)).astype(np.float32)
    field = np.asarray(Image.fromarray(grain).resize((w, h), Image.Resampling.BICUBIC))
    picture = Image.fromarray(np.clip(table + 12 * field[..., None], 0, 255).astype(np.uint8))
    cx, cy = w / 2 + rng.uniform(-0.04, 0.04) * w, h / 2 + rng.uniform(-0.04, 0.04) * h
    big = Image.new("RGB", (w, h))
    big.paste(sheet, (int(cx - sheet.width / 2), int(cy - sheet.height / 2)))
    where = Image.new("L", (w, h), 0)
    where.paste(255, (int(cx - sheet.width / 2), int(cy - sheet.height / 2),
                      int(cx + sheet.width / 2), int(cy + sheet.height / 2)))
    big, where = big.rotate(turn, Image.Resampling.BICUBIC, center=(cx, cy)), where.rotate(turn, center=(cx, cy))
    shadow = where.transform(where.size, Image.Transform.AFFINE, (1, 0, -0.015 * w, 0, 1, -0.02 * h))
    shadow = shadow.filter(ImageFilter.GaussianBlur(0.01 * w))
    dark = np.asarray(picture, np.float32) * (1 - 0.45 * np.asarray(shadow, np.float32)[..., None] / 255)
    picture = Image.fromarray(dark.astype(np.uint8))
    picture.paste(big, mask=where)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, 2 * np.pi)
    slope = ((xs - w / 2) * np.cos(angle) + (ys - h / 2) * np.sin(angle)) / max(w, h)
    light = 1 - rng.uniform(0.15, 0.35) * (slope + 0.5) - 0.12 * (((xs - w / 2) / w) ** 2 + ((ys - h / 2) / h) ** 2)
    lit = np.asarray(picture, np.float32) * light[..., None] + rng.normal(0, 3, (h, w, 1))
    out = io.BytesIO()
    Image.fromarray(np.clip(lit, 0, 255).astype(np.uint8)).save(out, "JPEG", quality=int(rng.integers(55, 86)))
    picture = Image.open(io.BytesIO(out.getvalue())).convert("RGB")
    c, s = np.cos(np.radians(turn)), np.sin(np.radians(turn))
    x0, y0 = cx - sheet.width / 2, cy - sheet.height / 2

    def moved(x: float, y: float) -> tuple[float, float]:  # PIL's rotate turns counter-clockwise on the screen
        dx, dy = x + x0 - cx, y + y0 - cy
        return (cx + c * dx + s * dy, cy - s * dx + c * dy)

    out_drawn = []
    for d in drawn:
        corners = [moved(x, y) for x in (d.box[0], d.box[2]) for y in (d.box[1], d.box[3])]
        box = (int(min(p[0] for p in corners)), int(min(p[1] for p in corners)), int(max(p[0] for p in corners)) + 1,
               int(max(p[1] for p in corners)) + 1)
        out_drawn.append(Drawn(d.color, d.shape, moved(*d.centre), box))
    return picture, out_drawn


def lined(rng: np.random.Generator) -> tuple[Image.Image, list[Drawn]]:
    """Marker drawings on notebook paper: blue rules and a red margin (two in three), or a blue squared grid."""
    w, h = [(850, 1100), (1200, 900), (1700, 2200), (600, 450)][int(rng.integers(4))]
    canvas = Image.new("RGB", (w, h), PAPERS[rng.integers(len(PAPERS))])
    draw = ImageDraw.Draw(canvas)
    blue = tuple(int(v) for v in (rng.integers(130, 190), rng.integers(170, 215), rng.integers(220, 250)))
    step = int(rng.uniform(0.028, 0.04) * max(w, h))
    thick = max(1, round(max(w, h) / 900))
    squared = rng.random() < 1 / 3
    for y in range(int(rng.uniform(0.08, 0.12) * h), h, step):
        draw.line((0, y, w, y), fill=blue, width=thick)
    if squared:
        for x in range(step // 2, w, step):
            draw.line((x, 0, x, h), fill=blue, width=thick)
    else:
        x = int(rng.uniform(0.1, 0.14) * w)
        red = tuple(int(v) for v in (rng.integers(210, 245), rng.integers(90, 150), rng.integers(100, 160)))
        draw.line((x, 0, x, h), fill=red, width=thick + 1)
    return canvas, _marker(canvas, rng, (0.22, 0.32), top=0.05)


def overlap(rng: np.random.Generator) -> tuple[Image.Image, list[Drawn]]:
    """Two flat shapes, the second over a part of the first (their centres 0.7 to 0.85 of a side apart)."""
    n = int(rng.choice((300, 512, 768, 1024)))
    canvas = Image.new("RGB", (n, n), PAPERS[rng.integers(len(PAPERS))])
    colors, shapes = _pair(rng)
    side = rng.uniform(0.3, 0.4) * n
    apart = rng.uniform(0.7, 0.85) * side
    cx, cy = n / 2 + rng.uniform(-0.05, 0.05) * n, n / 2 + rng.uniform(-0.1, 0.1) * n
    dy = rng.uniform(-0.25, 0.25) * side
    centres = [(cx - apart / 2, cy - dy / 2), (cx + apart / 2, cy + dy / 2)]
    first = _flat(canvas, colors[0], shapes[0], centres[0], side, rng)
    second = _flat(canvas, colors[1], shapes[1], centres[1], side, rng)
    return canvas, [first, second]


def crayon(rng: np.random.Generator) -> tuple[Image.Image, list[Drawn]]:
    """Shapes coloured in crayon: an outline and strokes across the inside, with grain (paper through the wax)."""
    n = int(rng.choice((400, 640, 1024, 2000)))
    canvas = Image.new("RGB", (n, n), PAPERS[rng.integers(len(PAPERS))])
    colors, shapes = _pair(rng)
    side = rng.uniform(0.28, 0.36) * n
    drawn = []
    for color, shape, centre in zip(colors, shapes, _places(canvas.size, side, rng)):
        points = outline(shape, *centre, side / 2, rng)
        inside = Image.new("L", canvas.size, 0)
        ImageDraw.Draw(inside).polygon(points, fill=255)
        wax = Image.new("L", canvas.size, 0)
        draw = ImageDraw.Draw(wax)
        pen = max(2, int(0.012 * n))
        slope = rng.uniform(-0.6, 0.6)
        for y in np.arange(centre[1] - side, centre[1] + side, pen * rng.uniform(0.9, 1.6)):
            draw.line((centre[0] - side, y - slope * side, centre[0] + side, y + slope * side), fill=255, width=pen)
        ink = np.asarray(wax) & np.asarray(inside)
        ImageDraw.Draw(stroke := Image.fromarray(ink)).line(points + points[:1], fill=255, width=pen)
        grain = rng.random(ink.shape) < rng.uniform(0.55, 0.75)
        mask = Image.fromarray(((np.asarray(stroke) > 0) & grain).astype(np.uint8) * 230)
        canvas.paste(_paint(color, rng), mask=mask)
        ys, xs = np.nonzero(np.asarray(stroke))
        drawn.append(Drawn(color, shape, (float(centre[0]), float(centre[1])),
                           (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)))
    return canvas, drawn


LOOKS: dict[str, Callable[[np.random.Generator], tuple[Image.Image, list[Drawn]]]] = {
    "clipart": clipart, "slide": slide, "photo": photo, "lined": lined, "overlap": overlap, "crayon": crayon}


def pictures(which: str, per_look: int, looks: tuple[str, ...] = tuple(LOOKS)):
    """``per_look`` pictures of every look of the ``which`` set (``SEEDS``): (look's name, index, image, truth)."""
    for look in looks:
        rng = np.random.default_rng([SEEDS[which], list(LOOKS).index(look)])  # a look's pictures whatever else
        for i in range(per_look):
            image, truth = LOOKS[look](rng)
            yield look, i, image, truth


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=sorted(SEEDS), default="val", help="which set (default val)")
    parser.add_argument("--per-look", type=int, default=24, help="pictures per look (default 24)")
    parser.add_argument("--looks", default=",".join(LOOKS), help="which looks, comma-separated (default all)")
    parser.add_argument("--out", type=Path, required=True, help="folder for the pictures and truth.json")
    args = parser.parse_args(argv)
    write(pictures(args.set, args.per_look, tuple(args.looks.split(","))), args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
