"""Marks on pictures that name what they show without a legend to look up: boxes in neutral ink (a dark line on a
light halo, no hue that could name a world colour), each with a small badge beside it, and the badge's row of text in
a strip below the picture; nothing is drawn in the picture's top band. Every picture gets a thin grey frame (a drawing
on white would melt into the page without one), and a map goes beside the picture it reads, never over it: the picture
keeps its own colours, which the captions name."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

INK, PAPER = (25, 25, 25), (245, 245, 245)  # lines and text, halos and plates: greys, never a world colour's hue
TITLE_BAND = 1 / 10  # the top of a picture, a share of its height, where gradio's title chip may sit: no badge there
GAP = 3  # pixels between a box and its badge, and around a badge's text
FRAME = (140, 140, 140)  # a picture's frame: a mid grey, seen on white and on black, the colour of no world object
BESIDE_GAP = 4 * GAP  # pixels between a picture and the map beside it
# the text of a picture with a map beside it, against one alone of its width: the pair is drawn at about the width of
# one picture, so that on a phone (324 of its 908 px) its text is 13 px, the page's own text there
BESIDE_TEXT = 1.2
Rect = tuple[float, float, float, float]


@lru_cache(maxsize=8)  # loaded once per size: a load takes about a millisecond
def label_font(side: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """The labels' font for a picture ``side`` pixels across: 16 px at the page's 448."""
    return ImageFont.load_default(size=max(13, side // 28))


def strip_font(across: int, beside: bool, scale: float = 1.0) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """The font of the text under a picture ``across`` pixels wide (with the map beside it, where ``beside``), drawn
    ``scale`` times the page's size (a picture narrower than the page's side is shown as wide): larger with a map
    beside (``BESIDE_TEXT``)."""
    return label_font(round(across * scale * (BESIDE_TEXT if beside else 1)))


def line_width(side: int) -> int:
    return max(2, side // 150)


@dataclass(frozen=True)
class Mark:
    """A box on the display canvas, the badge drawn beside it and the text of the badge's row in the strip."""

    box: Rect
    badge: str
    text: str


def _overlaps(a: Rect, b: Rect) -> bool:
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def badge_size(text: str, font) -> tuple[int, int]:
    """A badge's width and height: its text's ink with GAP around it; one height for every badge of a font."""
    left, _, right, _ = font.getbbox(text)
    _, top, _, bottom = font.getbbox("0")
    return int(right - left) + 2 * GAP, int(bottom - top) + 2 * GAP


def _beside(box: Rect, w: int, h: int) -> list[Rect]:
    """Where a w x h badge may sit just outside the box, in the order preferred: above, below, left, right."""
    x0, y0, x1, y1 = box
    spots = ((x0, y0 - GAP - h), (x0, y1 + GAP), (x0 - GAP - w, y0), (x1 + GAP, y0),
             (x1 - w, y0 - GAP - h), (x1 - w, y1 + GAP), (x0 - GAP - w, y1 - h), (x1 + GAP, y1 - h))
    return [(x, y, x + w, y + h) for x, y in spots]


def _inside(box: Rect, w: int, h: int, placed: list[Rect]) -> Rect:
    """In the box's lower-left corner, moved right past badges already there: for a box with no room around it."""
    x, y = box[0] + GAP, box[3] - GAP - h
    while any(_overlaps((x, y, x + w, y + h), p) for p in placed):
        x += w + GAP
    return x, y, x + w, y + h


def badge_spots(boxes: list[Rect], sizes: list[tuple[int, int]], canvas: tuple[int, int]) -> list[Rect]:
    """Each box's badge: beside the box, inside the picture and below its title band, on no other badge, across as
    few boxes as can be; in the box's own lower corner only where nothing outside fits (the whole image's box)."""
    width, height = canvas
    placed: list[Rect] = []
    for box, (w, h) in zip(boxes, sizes):
        free = [r for r in _beside(box, w, h) if r[0] >= 0 and r[1] >= height * TITLE_BAND and r[2] < width
                and r[3] < height and not any(_overlaps(r, p) for p in placed)]
        if free:
            placed.append(min(free, key=lambda r: sum(_overlaps(r, b) for b in boxes)))
        else:
            placed.append(_inside(box, w, h, placed))
    return placed


def write(draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, font) -> None:
    """Dark text whose ink starts at ``xy``."""
    left, top, _, _ = font.getbbox("0")
    draw.text((xy[0] - left, xy[1] - top), text, fill=INK, font=font)


def _badge(draw: ImageDraw.ImageDraw, spot: Rect, text: str, font) -> None:
    """Dark text on a light plate with a dark rim."""
    draw.rectangle(spot, fill=PAPER, outline=INK)
    write(draw, (spot[0] + GAP, spot[1] + GAP), text, font)


def _outline(draw: ImageDraw.ImageDraw, box: Rect, width: int) -> None:
    """A box as a dark line on a light halo: seen on any colour, the colour of none."""
    x0, y0, x1, y1 = box
    draw.rectangle((x0 - 1, y0 - 1, x1 + 1, y1 + 1), outline=PAPER, width=width + 2)
    draw.rectangle(box, outline=INK, width=width)


def wrap(text: str, font, width: float) -> list[str]:
    """The text's words in lines no wider than ``width`` (a longer word keeps a line of its own)."""
    lines = [""]
    for word in text.split():
        trial = f"{lines[-1]} {word}".strip()
        if lines[-1] and font.getlength(trial) > width:
            lines.append(word)
        else:
            lines[-1] = trial
    return lines


def _with_strip(canvas: Image.Image, rows: list[tuple[str | None, str]], font) -> Image.Image:
    """The canvas over a light strip with one row per (badge or None, text): the badge, then its text, wrapped; a
    row without a badge starts at the strip's edge."""
    indent = max((badge_size(b, font)[0] for b, _ in rows if b), default=0) + 2 * GAP
    step = badge_size("0", font)[1] + GAP
    lines = [(badge if k == 0 else None, part, indent if badge else 0) for badge, text in rows
             for k, part in enumerate(wrap(text, font, canvas.width - (indent if badge else 0) - 4 * GAP))]
    out = Image.new("RGB", (canvas.width, canvas.height + len(lines) * step + 3 * GAP), PAPER)
    out.paste(canvas)
    draw = ImageDraw.Draw(out)
    for k, (badge, text, left) in enumerate(lines):
        y = canvas.height + 2 * GAP + k * step
        if badge:
            _badge(draw, (2 * GAP, y, 2 * GAP + badge_size(badge, font)[0], y + step - GAP), badge, font)
        write(draw, (2 * GAP + left, y + GAP), text, font)
    return out


def framed(canvas: Image.Image) -> Image.Image:
    """The canvas with a 1-pixel grey frame on its outermost pixels (drawn in place, and returned)."""
    ImageDraw.Draw(canvas).rectangle((0, 0, canvas.width - 1, canvas.height - 1), outline=FRAME)
    return canvas


def beside(picture: Image.Image, shown: Image.Image | None) -> Image.Image:
    """The picture, framed, with ``shown`` (a map of the same size, or None for none) framed to its right,
    ``BESIDE_GAP`` apart on the strip's light paper: the picture stays at (0, 0)."""
    framed(picture)
    if shown is None:
        return picture
    out = Image.new("RGB", (picture.width + BESIDE_GAP + shown.width, picture.height), PAPER)
    out.paste(picture)
    out.paste(framed(shown.convert("RGB")), (picture.width + BESIDE_GAP, 0))
    return out


def top_region(level: np.ndarray, at: float) -> np.ndarray:
    """Where a map's (H, W) ``level`` (0 to 1, a pixel each) reaches ``at``: the part the outline encloses, (H, W)."""
    return np.asarray(level) >= at


def outline_region(canvas: Image.Image, region: np.ndarray, side: int) -> Image.Image:
    """The (H, W) boolean ``region``'s edge drawn on the canvas (in place, and returned) as the boxes are: a dark line
    just inside it on a light halo just outside, and nothing else changed, so that every other pixel keeps its
    colour."""
    width = line_width(side)
    inside = Image.fromarray(region.astype(np.uint8) * 255)
    core = np.asarray(inside.filter(ImageFilter.MinFilter(2 * width + 1))) > 0
    around = np.asarray(inside.filter(ImageFilter.MaxFilter(2 * width + 1))) > 0
    pixels = np.asarray(canvas).copy()
    pixels[around & ~region] = PAPER
    pixels[region & ~core] = INK
    canvas.paste(Image.fromarray(pixels))
    return canvas


def labelled(canvas: Image.Image, marks: list[Mark], header: list[str], side: int,
             shown: Image.Image | None = None) -> Image.Image:
    """The marks' boxes outlined on the canvas with their badges beside them, the canvas framed (with ``shown``, a
    map of its size, beside it, the boxes outlined there too), and the strip below: the header's lines, then each
    badge with its text."""
    across = canvas.width + (BESIDE_GAP + shown.width if shown is not None else 0)
    font = strip_font(across, shown is not None, side / canvas.width)  # sized for the whole: shown as one picture
    draw, width = ImageDraw.Draw(canvas), line_width(side)
    for m in marks:
        _outline(draw, m.box, width)
        if shown is not None:
            _outline(ImageDraw.Draw(shown), m.box, width)
    spots = badge_spots([m.box for m in marks], [badge_size(m.badge, font) for m in marks], canvas.size)
    for m, spot in zip(marks, spots):
        _badge(draw, spot, m.badge, font)
    return _with_strip(beside(canvas, shown), [(None, h) for h in header] + [(m.badge, m.text) for m in marks], font)


def ramp_strip(canvas: Image.Image, title: str, darkest: float, ticks: list[str], side: int) -> Image.Image:
    """The canvas over a strip with a colour bar: its title, a grey ramp from ``darkest`` (a share of white) to
    white, and the ticks' labels spread evenly under it, the first at its left end. Its text is sized for the
    canvas's width where that is more than ``side`` (a picture with its map beside it)."""
    font, pad = label_font(max(side, canvas.width)), 2 * GAP
    line = badge_size("0", font)[1]
    lines = wrap(title, font, canvas.width - 2 * pad)
    left, right, top = 2 * pad, canvas.width - 2 * pad, canvas.height + pad + len(lines) * line
    out = Image.new("RGB", (canvas.width, top + 2 * line + 2 * pad), PAPER)
    out.paste(canvas)
    ramp = (255 * np.linspace(darkest, 1, right - left)).round().astype(np.uint8)
    out.paste(Image.fromarray(np.tile(ramp, (line - GAP, 1))).convert("RGB"), (left, top))
    draw = ImageDraw.Draw(out)
    for k, text in enumerate(lines):
        write(draw, (pad, canvas.height + pad + k * line), text, font)
    draw.rectangle((left - 1, top - 1, right, top + line - GAP), outline=INK)
    for t, label in zip(np.linspace(0, 1, len(ticks)), ticks):
        x = left + t * (right - left - 1)
        draw.line((x, top + line - GAP, x, top + line), fill=INK)
        width = font.getlength(label)
        write(draw, (min(max(x - width / 2, pad), canvas.width - pad - width), top + line + GAP), label, font)
    return out
