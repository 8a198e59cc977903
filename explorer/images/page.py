"""A page read as a person reads it, before its objects are found: a sheet photographed on a table is found, set
upright and its light evened; the rules of lined or squared paper and a margin line are painted out as paper.

A sheet is looked for on a copy ``SHEET_SIDE`` px
long, the pixels bright in every channel (above Otsu's threshold of the darkest channel) whose largest joined part,
its holes filled, covers ``SHEET_SHARE`` of the picture, touches at most ``MOST_EDGE`` of its frame and fills ``SQUARENESS`` of its tightest turned box. The
picture turned by that box's angle (at most ``MOST_TURN``) and cut to it, less ``INSET`` along each side, is the
sheet; its light is evened by a smooth field (a quadratic per channel, fitted to the paper's pixels only). A sheet
whose evened frame is not plain is no sheet (the picture is read as it is).

Rules are long thin lines: rows (columns) where lines at most ``RULE_THICK`` of the picture thick cover
``RULE_SPAN`` of its width (height). A page with at least ``LEAST_RULES`` such lines in one direction is ruled or
squared; then every thin line of the rules' colour (of either), either way (a margin), covering ``RULE_PART`` of its
row or column (rules run on between the shapes), is painted in the paper's colour. A picture with no sheet and
no rules is left as it is (the world's scenes, flat drawings: ``Page.changes`` is False).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PIL import Image
from scipy import ndimage

from explorer.core.image_state import ImageState

Box = tuple[int, int, int, int]
SHEET_SIDE = 400  # the sheet is looked for on a copy this long
SHEET_SHARE = (0.2, 0.95)  # of the picture: a sheet covers this much of a photo of it
SQUARENESS = 0.88  # the share of its tightest turned box a sheet fills
MOST_TURN = 30.0  # degrees
MOST_EDGE = 0.25  # of the picture's frame: a sheet lies on the table, most of its frame is table
INSET = 0.025  # of the sheet's side: its edge and a shadow along it are cut off
PAPER_LIFT = 40.0  # the sheet's darkest channel lies at least this far above the table's (0-255)
FIELD_SIDE = 96  # the light field is fitted on a copy this long
RULE_THICK = 0.004  # of the picture's longer side (at least 3 px): a rule is at most this thick
RULE_SPAN = 0.6  # of a row (column): a rule's line covers this much of it
RULE_PART = 0.1  # of a row (column) on a ruled page: a line of the rules' colour this long is a rule too
LEAST_RULES = 3  # lines in one direction: a ruled or squared page
INK = 48.0  # RGB distance from the background at which a pixel is drawn on
PLAIN_FRAME = 0.9  # share of the frame's pixels within INK of the paper's colour: a plain sheet
RULE_INK = INK / 2  # RGB from the paper: a faint rule counts


def background(image: Image.Image) -> tuple[int, int, int]:
    """The colour of the picture's outer frame (2 px wide): the per-channel median."""
    pixels = np.asarray(image.convert("RGB"))
    frame = np.concatenate([pixels[:2].reshape(-1, 3), pixels[-2:].reshape(-1, 3), pixels[:, :2].reshape(-1, 3),
                            pixels[:, -2:].reshape(-1, 3)])
    return tuple(int(v) for v in np.median(frame, axis=0))  # type: ignore[return-value]


def on_paper(image: Image.Image) -> tuple[int, int, int] | None:
    """The paper's colour where the picture's frame (2 px, at its own size) is plain, else None."""
    pixels = np.asarray(image.convert("RGB"))
    frame = np.concatenate([pixels[:2].reshape(-1, 3), pixels[-2:].reshape(-1, 3), pixels[:, :2].reshape(-1, 3),
                            pixels[:, -2:].reshape(-1, 3)]).astype(np.float32)
    paper = background(image)
    plain = float(np.mean(np.linalg.norm(frame - np.asarray(paper, np.float32), axis=1) < INK))
    return paper if plain >= PLAIN_FRAME else None


@dataclass(frozen=True, eq=False)
class Page:
    """The page of a picture of ``size``: ``picture``, the page as read; where a sheet was found, the picture turned
    by ``turn`` degrees (as ``Image.rotate``) about ``centre`` and cut to ``crop``; ``what`` it did, in words."""

    picture: Image.Image
    size: tuple[int, int]
    turn: float = 0.0
    centre: tuple[float, float] = (0.0, 0.0)
    crop: Box | None = None
    what: tuple[str, ...] = ()

    @property
    def changes(self) -> bool:
        return bool(self.what)

    def point_to_frame(self, x: float, y: float) -> tuple[float, float]:
        """A point of the page, in the picture's pixels."""
        if self.crop is None:
            return (x, y)
        cx, cy = self.centre
        dx, dy = x + self.crop[0] - cx, y + self.crop[1] - cy
        a = np.radians(-self.turn)
        return (cx + np.cos(a) * dx + np.sin(a) * dy, cy - np.sin(a) * dx + np.cos(a) * dy)

    def box_to_frame(self, box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        """A box of the page, in the picture's pixels (the box around its turned corners)."""
        if self.crop is None:
            return box
        corners = [self.point_to_frame(x, y) for x in (box[0], box[2]) for y in (box[1], box[3])]
        xs, ys = [c[0] for c in corners], [c[1] for c in corners]
        return (min(xs), min(ys), max(xs), max(ys))

    def map_to_frame(self, heat: np.ndarray) -> np.ndarray:
        """A map (or mask) over the page, over the picture instead: 0 (False) off the sheet."""
        if self.crop is None:
            return heat
        w, h = self.size
        canvas = np.zeros((h, w), np.float32)
        x0, y0 = self.crop[:2]
        left, top = max(0, x0), max(0, y0)
        right, bottom = min(w, x0 + heat.shape[1]), min(h, y0 + heat.shape[0])
        canvas[top:bottom, left:right] = heat[top - y0:bottom - y0, left - x0:right - x0]
        back = np.asarray(Image.fromarray(canvas).rotate(-self.turn, Image.Resampling.NEAREST if heat.dtype == bool
                                                         else Image.Resampling.BILINEAR, center=self.centre))
        return back > 0.5 if heat.dtype == bool else back.astype(heat.dtype)


def _sheet(image: Image.Image) -> tuple[float, tuple[float, float], Box] | None:
    """The turn, centre and box (in the turned picture's pixels) of a sheet photographed on a table; None where
    there is none."""
    from skimage.filters import threshold_otsu

    scale = min(1.0, SHEET_SIDE / max(image.size))
    small = image.convert("RGB").resize((max(1, round(image.width * scale)), max(1, round(image.height * scale))),
                                        Image.Resampling.BOX)
    low = ndimage.gaussian_filter(np.asarray(small, np.float32).min(axis=2), 1.5)
    if np.ptp(low) < PAPER_LIFT:
        return None
    bright = low > threshold_otsu(low)
    labels, n = ndimage.label(bright)
    if n == 0:
        return None
    sheet = ndimage.binary_fill_holes(labels == 1 + int(np.argmax(np.bincount(labels.ravel())[1:])))
    share = sheet.mean()
    edge = np.concatenate([sheet[0], sheet[-1], sheet[:, 0], sheet[:, -1]]).mean()
    if not SHEET_SHARE[0] <= share <= SHEET_SHARE[1] or edge > MOST_EDGE or np.median(low[sheet]) - np.median(low[~sheet]) < PAPER_LIFT:
        return None
    ys, xs = np.nonzero(sheet)
    cx, cy = xs.mean(), ys.mean()
    dx, dy = xs - cx, ys - cy
    best = None
    for turn in np.arange(-MOST_TURN, MOST_TURN + 0.01, 0.5):
        a = np.radians(turn)  # as Image.rotate turns: counter-clockwise on the screen
        u, v = np.cos(a) * dx + np.sin(a) * dy, -np.sin(a) * dx + np.cos(a) * dy
        area = (np.ptp(u) + 1) * (np.ptp(v) + 1)
        if best is None or area < best[0]:
            best = (area, turn, (u.min(), v.min(), u.max() + 1, v.max() + 1))
    area, turn, (u0, v0, u1, v1) = best  # type: ignore[misc]
    if sheet.sum() < SQUARENESS * area:
        return None
    iu, iv = INSET * (u1 - u0), INSET * (v1 - v0)
    box = tuple(int(round(v / scale)) for v in (cx + u0 + iu, cy + v0 + iv, cx + u1 - iu, cy + v1 - iv))
    return float(turn), (float(cx / scale), float(cy / scale)), box  # type: ignore[return-value]


def even_light(sheet: Image.Image) -> Image.Image:
    """The sheet with its light evened: each channel divided by a quadratic fitted to the paper's pixels (those not
    darker than the fit in any channel, fitted again four times), so the paper is as bright everywhere as where the
    light is brightest."""
    scale = min(1.0, FIELD_SIDE / max(sheet.size))
    small = np.asarray(sheet.resize((max(2, round(sheet.width * scale)), max(2, round(sheet.height * scale))),
                                    Image.Resampling.BOX), np.float32)
    h, w = small.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    xs, ys = xs / w - 0.5, ys / h - 0.5
    terms = np.stack([np.ones_like(xs), xs, ys, xs * xs, xs * ys, ys * ys], -1).reshape(-1, 6)
    values = small.reshape(-1, 3)
    paper = np.ones(len(values), bool)
    for _ in range(5):
        coef = np.linalg.lstsq(terms[paper], values[paper], rcond=None)[0]
        paper = (values - terms @ coef).min(axis=1) > -12
    field = (terms @ coef).reshape(h, w, 3)
    white = np.percentile(field.reshape(-1, 3), 95, axis=0)
    big = np.stack([np.asarray(Image.fromarray(np.maximum(field[..., c], 8.0)).resize(sheet.size,
                                                                                      Image.Resampling.BILINEAR))
                    for c in range(3)], -1)
    return Image.fromarray(np.clip(np.asarray(sheet, np.float32) * white / big, 0, 255).astype(np.uint8))


def _runs(ink: np.ndarray, axis: int) -> np.ndarray:
    """Each ink pixel's run length along ``axis`` (0: down its column, 1: along its row); 0 off the ink."""
    structure = np.zeros((3, 3), bool)
    structure[1, 1] = True
    if axis == 0:
        structure[:, 1] = True
    else:
        structure[1, :] = True
    labels, _ = ndimage.label(ink, structure)
    sizes = np.bincount(labels.ravel())
    sizes[0] = 0
    return sizes[labels]


def _lines(thin: np.ndarray, axis: int) -> tuple[np.ndarray, int]:
    """The rows (axis 1) or columns (axis 0) a thin line covers ``RULE_SPAN`` of, and how many lines they make."""
    full = thin.mean(axis=axis) >= RULE_SPAN
    return full, int(ndimage.label(full)[1])


def rules(image: Image.Image, paper: tuple[int, int, int]) -> np.ndarray | None:
    """The pixels of a ruled or squared page's lines (H, W) bool, grown by a pixel; None where it has no rules."""
    pixels = np.asarray(image.convert("RGB"), np.float32)
    ink = np.linalg.norm(pixels - np.asarray(paper, np.float32), axis=-1) > RULE_INK
    thick = max(3, round(RULE_THICK * max(image.size)))
    across = ink & (_runs(ink, 0) <= thick)  # thin up and down: part of a line across
    down = ink & (_runs(ink, 1) <= thick)  # thin left and right: part of a line down
    rows, n_rows = _lines(across, 1)
    cols, n_cols = _lines(down, 0)
    if max(n_rows, n_cols) < LEAST_RULES:
        return None
    rows, cols = (ndimage.binary_dilation(rows, iterations=thick), ndimage.binary_dilation(cols, iterations=thick))
    lines = (across & rows[:, None]) | (down & cols[None, :])
    colour = np.median(pixels[lines], axis=0)  # rules run on under the shapes' gaps and between shapes: in the
    like = np.linalg.norm(pixels - colour, axis=-1) < RULE_INK * 2  # rules' colour, they count over less of a row
    more_rows = ndimage.binary_dilation((across & like).mean(axis=1) >= RULE_PART, iterations=thick)
    more_cols = ndimage.binary_dilation((down & like).mean(axis=0) >= RULE_PART, iterations=thick)
    more = (across & like & more_rows[:, None]) | (down & like & more_cols[None, :])
    return ndimage.binary_dilation(lines | more)


def read_page(image: Image.Image) -> Page:
    """The page of ``image`` (``Page.changes`` False where it is read as it is)."""
    what: list[str] = []
    picture, turn, centre, crop = image.convert("RGB"), 0.0, (0.0, 0.0), None
    if (found := _sheet(image)) is not None:
        turn, centre, crop = found
        sheet = even_light(picture.rotate(turn, Image.Resampling.BICUBIC, center=centre).crop(crop))
        if on_paper(sheet) is not None:
            picture = sheet
            what.append(f"a sheet photographed on a table was found, turned {abs(turn):.0f} degrees upright, and its "
                        "light evened; the table, the sheet's edge and its shadow are background")
        else:
            turn, centre, crop = 0.0, (0.0, 0.0), None
    paper = background(picture)
    lines = rules(picture, paper)
    if lines is not None:
        painted = np.asarray(picture).copy()
        painted[lines] = paper
        picture = Image.fromarray(painted)
        what.append("the paper's ruled lines and margin are background: they were painted out before the "
                        "objects were found")
    if not what:
        return Page(image, image.size)
    return Page(picture, image.size, turn, centre, crop, tuple(what))


def page_of(state: ImageState) -> Page:
    """The page of the state's picture (``read_page``), kept in the state."""
    return state.kept(Page, lambda: read_page(state.image))
