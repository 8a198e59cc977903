"""Objects drawn on plain paper, found at the drawing's own scale: flat shapes, line drawings and marker strokes alike.

A picture whose frame is plain (``PLAIN_FRAME`` of its pixels within ``INK`` of their median colour) is paper. What
is drawn on it (``fit.content_box``) is read on a copy ``WORK_SIDE`` pixels along its longer side, whatever the
picture's size, so a 300 px pad, a 3000 px scan and a slide with small shapes at its sides are read alike. There,
every pixel far from the paper is ink; each joined stroke of ink with its holes filled is an object's silhouette (a
scribbled or outlined inside becomes whole), a stroke of two colours is split by colour (a red and a blue shape that
touch), and a speck (less than ``LEAST_SHARE`` of the largest object) is dropped. A picture whose frame is not plain
(a gradient, a photo) gets None: the segmentation reads it (``objects.find_objects``).

That plain reading stands for a plain drawing (the world's scenes read as they always have; an outline and its fill
found there are one object to a caption: ``fills_alone``). A page is read further: a sheet or ruled paper read first
(``page.read_page``), a line of text found, or more marks than a caption names. There ink is found on the picture's
mean over ``GRAIN`` px (crayon's grain joined), a silhouette inside a larger one is its fill (an outline and its fill
are one object, its colour the fill's), and lines of text and drawn lines are set aside (``text.text_and_lines``:
said to be text, never a shape).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from PIL import Image
from scipy import ndimage

from explorer.images.fit import content_box
from explorer.images.objects import TOUCH, Found, FoundObject, along, box_of, off_blend
from explorer.images.page import INK, on_paper
from explorer.images.text import text_and_lines

WORK_SIDE = 512  # the drawing is read on a copy this long (its longer side), never enlarged
LEAST_SHARE = 0.04  # of the largest object's silhouette: a smaller one is a speck
LEAST_PIXELS = 24  # on the working copy: a silhouette smaller than this is a speck whatever the others
SPLIT = 60.0  # RGB: a stroke whose two colour clusters lie this far apart is two objects that touch
SPLIT_SHARE = 0.1  # each cluster holds at least this share of the stroke's ink
GRAIN = 3  # px of the working copy: ink is found on its mean over squares this wide
INSIDE = 0.9  # share of a silhouette within a larger one: it is that one's fill
HUG = 3  # px of the working copy: an outline broken open still hugs its fill this close
GRAINY = 0.2  # of what a drawing's ink covers that is paper: crayon's grain, read as a page
MOST_MARKS = 4  # objects a plain reading finds (an outline and its fill one): the world's scenes hold 4 at most
STRONGEST = 0.1  # of an object's ink, the share farthest from the paper: crayon's grain read on a smaller copy blends
WASHED = 1.15  # the wax with the paper in most pixels; where these lie this much farther out, they are its colour
EIGHT = np.ones((3, 3), bool)
Working = tuple[tuple[int, int, int, int], np.ndarray]  # the drawn part's box and its working copy (``_working``)


def _two_colours(colours: np.ndarray, paper: np.ndarray, page: bool) -> np.ndarray | None:
    """Labels 0/1 for a stroke's ink where its colours form two clusters far apart (2-means; on a page, on its strong
    ink: at least half as far from the paper as its farthest, -1 for the rest), neither a blend of the other with the
    paper (a soft edge), else None. A plain picture's 2-means starts from its darkest and brightest pixels."""
    far = np.linalg.norm(colours - paper, axis=1)
    strong = colours[far >= 0.5 * np.percentile(far, 95)].astype(float) if page else colours
    if page:
        first = strong[int(np.argmax(np.linalg.norm(strong - np.median(strong, axis=0), axis=1)))]
        centres = np.stack([first, strong[int(np.argmax(np.linalg.norm(strong - first, axis=1)))]])
    else:
        centres = colours[[int(np.argmin(colours.sum(1))), int(np.argmax(colours.sum(1)))]].astype(float)
    for _ in range(8):
        label = np.linalg.norm(strong[:, None] - centres[None], axis=2).argmin(1)
        if label.min() == label.max():
            return None
        centres = np.stack([strong[label == k].mean(0) for k in (0, 1)])
    shares = np.bincount(label, minlength=2) / len(label)
    if np.linalg.norm(centres[0] - centres[1]) < SPLIT or shares.min() < SPLIT_SHARE:
        return None
    if any(off_blend(centres[k], paper, centres[1 - k]) < SPLIT / 2 for k in (0, 1)):  # a soft edge's colours lie
        return None  # between the paper's and the fill's
    if not page:
        return label
    label = np.linalg.norm(colours[:, None].astype(float) - centres[None], axis=2).argmin(1)
    label[far < 0.5 * np.percentile(far, 95)] = -1  # the paper around a stroke joins neither part
    return label


def _silhouettes(work: np.ndarray, ink: np.ndarray, paper: np.ndarray, page: bool) -> list[np.ndarray]:
    """Each joined stroke of ink (split by colour where it holds two), its holes filled."""
    labels, n = ndimage.label(ink, EIGHT)
    out = []
    for k in range(1, n + 1):
        stroke = labels == k
        split = _two_colours(work[stroke], paper, page) if stroke.sum() >= 2 * LEAST_PIXELS else None
        parts = [stroke] if split is None else [_part(stroke, split == c) for c in (0, 1)]
        for part in parts:
            pieces, m = ndimage.label(part, EIGHT)
            out += [ndimage.binary_fill_holes(pieces == j) for j in range(1, m + 1)]
    return out


def _part(stroke: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    part = np.zeros_like(stroke)
    part[stroke] = chosen
    return part


def _object(pixels: np.ndarray, silhouette: np.ndarray, paper: tuple[int, int, int],
            fill: np.ndarray | None = None) -> FoundObject | None:
    """The object of a silhouette (over the picture's own pixels): its ink is what lies far from the paper inside
    it, its fill the median of its strongest ink (of ``fill``'s pixels where its outline is another colour); of the
    ``STRONGEST`` share of it where that lies much farther from the paper on the same line from it (``WASHED``:
    crayon read on a smaller copy, its wax blended with the paper through it in most pixels; not a dark outline)."""
    x0, y0, x1, y1 = box_of(silhouette)
    near = pixels[y0:y1, x0:x1].astype(np.float32)
    far = np.linalg.norm(near - np.asarray(paper, np.float32), axis=-1)
    core = np.zeros_like(silhouette)
    core[y0:y1, x0:x1] = silhouette[y0:y1, x0:x1] & (far > INK)
    if not core.any():
        return None
    inside = core[y0:y1, x0:x1]
    if fill is not None and (inside & fill[y0:y1, x0:x1]).any():
        inside = inside & fill[y0:y1, x0:x1]
    strong = inside & (far >= np.median(far[inside]))
    rgb = np.median(near[strong], axis=0)
    wax = np.median(near[inside & (far >= np.quantile(far[inside], 1 - STRONGEST))], axis=0)
    if along(wax, paper, rgb) > WASHED and off_blend(wax, paper, rgb, beyond=True) < SPLIT / 2:  # deeper, same hue
        rgb = wax
    rgb = tuple(int(v) for v in rgb)
    return FoundObject(silhouette, core, box_of(core), rgb, paper)  # type: ignore[arg-type]


def _outlined(shapes: list[np.ndarray]) -> list[tuple[np.ndarray, np.ndarray | None]]:
    """Each silhouette (largest first) with the fill inside it: a silhouette lying ``INSIDE`` within a larger one (grown
    by ``HUG`` px) is part of it, never an object: its fill (an outline of another colour, or paper between an outline
    and its fill) or its outline, broken, around it."""
    out: list[tuple[np.ndarray, np.ndarray | None]] = []
    grown: list[np.ndarray] = []
    for shape in shapes:
        host = next((k for k, big in enumerate(grown) if (shape & big).sum() >= INSIDE * shape.sum()), None)
        if host is None:
            out.append((shape, None))
            grown.append(ndimage.binary_dilation(shape, iterations=HUG))
        elif out[host][1] is None and shape.sum() < out[host][0].sum() / 2:  # the fill inside an outline
            out[host] = (out[host][0], shape)
    return out


def ink_objects(image: Image.Image, page: bool = False) -> Found | None:
    """The objects drawn on the picture's plain paper, largest first, the pairs that touch and the lines of text;
    None where the frame is not plain. A plain drawing is read as it always was; a page (``page``: a sheet or ruled
    paper was read first, a line of text, or more marks than a caption names: ``_a_page``) is read as a person reads
    one."""
    paper = on_paper(image)
    if paper is None:
        return None
    working = _working(image, paper)  # made once: both readings and the grain read it
    plain, read = _read(image, paper, False, working), _read(image, paper, True, working)
    return read if page or read.text or _a_page(plain, read) or _grainy(image, paper, working) else plain


def _a_page(plain: Found, read: Found) -> bool:
    """Whether a plain reading found more marks than a caption names (a page's letters or crayon's pieces), or one
    object where the page's reading finds more (two shapes of near colours that overlap, which its start from the
    darkest and the brightest pixel, a soft edge's, keeps as one)."""
    alone = len(fills_alone(plain).objects)
    return alone > MOST_MARKS or alone == 1 < len(fills_alone(read).objects)


def _grainy(image: Image.Image, paper: tuple[int, int, int], working: Working | None = None) -> bool:
    """Whether the drawing's ink is grainy (crayon or chalk: paper through the wax): over ``GRAINY`` of what its ink
    covers (on the working copy, closed over 3 x 3) is paper (a flat fill's or a marker's ink: at most a tenth)."""
    work = working or _working(image, paper)
    if work is None:
        return False
    ink = np.linalg.norm(work[1] - np.asarray(paper, np.float32), axis=-1) > INK
    covered = ndimage.binary_closing(ink, EIGHT)
    return bool(covered.any() and np.mean(~ink[covered]) > GRAINY)


def _working(image: Image.Image, paper: tuple[int, int, int]) -> Working | None:
    """The box of what is drawn on the paper, and that part of the picture at most ``WORK_SIDE`` long (float RGB)."""
    drawn = content_box(image, paper)
    if drawn is None:
        return None
    x0, y0, x1, y1 = drawn
    scale = min(1.0, WORK_SIDE / max(x1 - x0, y1 - y0))
    size = (max(1, round((x1 - x0) * scale)), max(1, round((y1 - y0) * scale)))
    return drawn, np.asarray(image.convert("RGB").crop(drawn).resize(size, Image.Resampling.BOX), dtype=np.float32)


def fills_alone(found: Found) -> Found:
    """The objects with each outline that holds another object (its fill, ``INSIDE`` within it) left out: an
    outline and its fill are one object, read from its fill (a plain reading finds both)."""
    objects = found.objects
    outlines = {k for k, outer in enumerate(objects) if any(
        (inner.mask & outer.mask).sum() >= INSIDE * inner.mask.sum() for inner in objects[k + 1:])}
    kept = [k for k in range(len(objects)) if k not in outlines]
    where = {old: new for new, old in enumerate(kept)}
    touching = tuple((where[i], where[j]) for i, j in found.touching if i in where and j in where)
    return replace(found, objects=tuple(objects[k] for k in kept), touching=touching)


def _read(image: Image.Image, paper: tuple[int, int, int], page: bool, working: Working | None = None) -> Found:
    working = working or _working(image, paper)
    if working is None:
        return Found((), ())
    (x0, y0, x1, y1), work = working
    scale = min(1.0, WORK_SIDE / max(x1 - x0, y1 - y0))
    size = (work.shape[1], work.shape[0])
    smooth = ndimage.uniform_filter(work, (GRAIN, GRAIN, 1)) if page else work  # crayon's grain, a marker's gaps
    ink = np.linalg.norm(smooth - np.asarray(paper, np.float32), axis=-1) > INK
    shapes = sorted(_silhouettes(work, ink, np.asarray(paper, np.float32), page), key=lambda s: -int(s.sum()))
    marks = _outlined(shapes) if page else [(m, None) for m in shapes]
    colours = [np.median(work[m & ink], axis=0) - paper if (m & ink).any() else np.zeros(3) for m, _ in marks]
    text, lines = text_and_lines([box_of(m) for m, _ in marks], max(size), colours) if page else ([], [])
    aside = {i for line in text for i in line} | set(lines)
    shapes = [m for i, m in enumerate(marks) if i not in aside]
    least = max(LEAST_PIXELS, LEAST_SHARE * shapes[0][0].sum()) if shapes else 0
    shapes = [m for m in shapes if m[0].sum() >= least]
    pixels = np.asarray(image.convert("RGB"))

    def whole(mask: np.ndarray) -> np.ndarray:  # a mask of the working copy, over the picture
        out = np.zeros(pixels.shape[:2], bool)
        out[y0:y1, x0:x1] = np.asarray(Image.fromarray(mask).resize((x1 - x0, y1 - y0), Image.Resampling.NEAREST))
        return out

    objects: list[FoundObject] = []
    kept: list[np.ndarray] = []
    for shape, fill in shapes:
        if (found := _object(pixels, whole(shape), paper, None if fill is None else whole(fill))) is not None:
            objects.append(found)
            kept.append(shape)
    grown = [ndimage.binary_dilation(s, iterations=TOUCH) for s in kept]
    touching = tuple((i, j) for i in range(len(kept)) for j in range(i + 1, len(kept)) if (grown[i] & kept[j]).any())
    boxes = [box_of(np.logical_or.reduce([marks[i][0] for i in line])) for line in text]
    words = tuple((x0 + int(b[0] / scale), y0 + int(b[1] / scale), x0 + int(np.ceil(b[2] / scale)),
                   y0 + int(np.ceil(b[3] / scale))) for b in boxes)
    return Found(tuple(objects), touching, words, page)
