"""The synthetic binding world: flat 2D shapes, exact ground truth, template captions, swap items.

Scenes live in normalized coordinates (the unit square) and are rendered at any pixel size.
Everything is driven by an explicit ``numpy.random.Generator`` so that a seed fixes it all.
Captions name objects in random order (never left to right) except relation captions, so
word order carries no layout information (DESIGN.md section 5).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np
from PIL import Image, ImageDraw

COLORS: dict[str, tuple[int, int, int]] = {
    "red": (220, 38, 38),
    "orange": (245, 140, 20),
    "yellow": (240, 220, 40),
    "green": (30, 160, 60),
    "blue": (35, 85, 225),
    "purple": (140, 60, 190),
    "black": (15, 15, 15),
    "white": (250, 250, 250),
}
SHAPES: tuple[str, ...] = ("circle", "square", "triangle", "star")
# Training-only concepts the benchmark never asks about (`train-world --extra-concepts K` adds the first K of
# each): with them each colour meets many shapes and each shape many colours. The extra colours stay at least
# EXTRA_MIN_DISTANCE (RGB) from every palette colour and the background, so none passes for a palette colour.
EXTRA_COLORS: dict[str, tuple[int, int, int]] = {
    "pink": (250, 150, 200),
    "cyan": (40, 215, 225),
    "brown": (120, 65, 25),
    "olive": (110, 110, 20),
    "lavender": (190, 170, 250),
    "mint": (150, 240, 190),
    "teal": (0, 130, 140),
    "navy": (20, 25, 100),
    "maroon": (100, 0, 30),
    "magenta": (240, 40, 240),
    "salmon": (250, 120, 110),
    "sky": (140, 200, 250),
    "indigo": (75, 0, 180),
    "peach": (255, 200, 150),
    "plum": (110, 30, 90),
    "aqua": (120, 255, 255),
}
EXTRA_SHAPES: tuple[str, ...] = ("hexagon", "cross", "diamond", "arrow", "bar", "oval", "chevron", "trapezoid",
                                 "hourglass", "heart", "crescent", "semicircle", "parallelogram", "kite", "house", "ring")
EXTRA_MIN_DISTANCE = 85.0
FILLS = {**COLORS, **EXTRA_COLORS}  # every colour name a scene may draw
SIZES: dict[str, float] = {"small": 0.24, "large": 0.36}
BACKGROUND = (128, 128, 128)
OUTLINE = (60, 40, 20)  # the shift style: every object outlined, a look training never shows
N_OBJECTS_P = (0.4, 0.3, 0.2, 0.1)  # how often scenes hold 1, 2, 3 or 4 objects
KINDS: tuple[str, ...] = ("attribute", "size", "relation", "object")
SPLITS: tuple[str, ...] = ("id", "heldout", "shift")  # the test splits: read only to report
VAL_PREFIX = "val-"
VAL_SPLITS: tuple[str, ...] = tuple(VAL_PREFIX + s for s in SPLITS)  # the same kinds of items, for every choice
RELATIONS = ("to the left of", "to the right of", "above", "below")
DEFAULT_COVERAGE = 0.75
DEFAULT_WORLD_SEED = 0

# grey: a black-and-white picture; unnamed: objects painted in colours outside the palette (both for training only)
Style = Literal["plain", "shift", "grey", "unnamed"]
PAINT_MIN_DISTANCE = 100.0  # how far (RGB, 0-255) an unnamed paint stays from every palette colour and the background
Combo = tuple[str, str]  # (color, shape)

ALL_COMBOS: tuple[Combo, ...] = tuple(itertools.product(COLORS, SHAPES))


@dataclass(frozen=True)
class WorldObject:
    """One flat shape: its concepts and its centre in unit coordinates."""

    color: str
    shape: str
    size: str
    cx: float
    cy: float

    @property
    def combo(self) -> Combo:
        return (self.color, self.shape)

    @property
    def extent(self) -> float:
        return SIZES[self.size]

    @property
    def box(self) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) in unit coordinates."""
        h = self.extent / 2
        return (self.cx - h, self.cy - h, self.cx + h, self.cy + h)

    def phrase(self, with_size: bool = False, omit: Literal["color", "shape"] | None = None) -> str:
        """"a (large) red square"; ``omit`` leaves out the colour ("a square") or names no shape ("a red shape")."""
        color = [] if omit == "color" else [self.color]
        shape = "shape" if omit == "shape" else self.shape
        words = ([self.size] if with_size else []) + color + [shape]
        return f"{article(words[0])} {' '.join(words)}"


@dataclass(frozen=True)
class Scene:
    objects: tuple[WorldObject, ...]
    style: Style = "plain"
    paints: tuple[tuple[int, int, int], ...] = ()  # an unnamed scene's RGB per object, drawn instead of the colour

    def render(self, size: int = 128) -> Image.Image:
        img = Image.new("RGB", (size, size), BACKGROUND)
        draw = ImageDraw.Draw(img)
        fills = self.paints or [FILLS[obj.color] for obj in self.objects]
        for obj, fill in zip(self.objects, fills):
            _draw(draw, obj, size, fill, OUTLINE if self.style == "shift" else None)
        return img.convert("L").convert("RGB") if self.style == "grey" else img

    def masks(self, size: int = 128) -> np.ndarray:
        """Boolean masks, one per object, shape (n_objects, size, size)."""
        out = np.zeros((len(self.objects), size, size), dtype=bool)
        for i, obj in enumerate(self.objects):
            m = Image.new("L", (size, size), 0)
            _draw(ImageDraw.Draw(m), obj, size, 255, 255 if self.style == "shift" else None)
            out[i] = np.asarray(m) > 0
        return out

    def pixel_boxes(self, size: int = 128) -> list[tuple[int, int, int, int]]:
        return [tuple(int(round(v * size)) for v in o.box) for o in self.objects]  # type: ignore[misc]


@dataclass(frozen=True)
class SwapItem:
    """A Winoground-style item: caption i describes image i; the other pair is a swap."""

    kind: str
    split: str
    images: tuple[Scene, Scene]
    captions: tuple[str, str]


@dataclass(frozen=True)
class SingleItem:
    """One object alone; the right caption is ``captions[label]`` among all objects' captions."""

    split: str
    scene: Scene
    label: int
    captions: tuple[str, ...] = field(repr=False)


def article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def _draw(draw: ImageDraw.ImageDraw, obj: WorldObject, size: int, fill, outline) -> None:
    x0, y0, x1, y1 = (v * size for v in obj.box)
    width = max(1, round(size / 64)) if outline is not None else 0
    if obj.shape in ("circle", "oval"):
        inset = (x1 - x0) * 0.22 if obj.shape == "oval" else 0
        draw.ellipse((x0 + inset, y0, x1 - inset, y1), fill=fill, outline=outline, width=width)
    elif obj.shape == "ring":
        draw.ellipse((x0, y0, x1, y1), outline=fill, width=max(1, round((x1 - x0) * 0.18)))
    else:
        draw.polygon(_polygon(obj.shape, x0, y0, x1, y1), fill=fill, outline=outline, width=width)


def _polygon(shape: str, x0: float, y0: float, x1: float, y1: float) -> list[tuple[float, float]]:
    """The corners of a polygonal shape drawn in the box (x0, y0, x1, y1)."""
    cx, cy, r = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 2
    if shape == "square":
        s = r * 0.88
        return [(cx - s, cy - s), (cx + s, cy - s), (cx + s, cy + s), (cx - s, cy + s)]
    if shape == "triangle":
        return [(cx, y0), (x1, y1 - r * 0.15), (x0, y1 - r * 0.15)]
    if shape in ("star", "hexagon"):
        corners = {"star": 10, "hexagon": 6}[shape]
        angles = np.pi / 2 + np.arange(corners) * 2 * np.pi / corners
        radii = np.where(np.arange(corners) % 2 == 0, r, r * 0.45) if shape == "star" else np.full(corners, r)
        return [(cx + rr * np.cos(a), cy - rr * np.sin(a)) for a, rr in zip(angles, radii)]
    if shape == "cross":
        t = r * 0.35
        return [(cx - t, y0), (cx + t, y0), (cx + t, cy - t), (x1, cy - t), (x1, cy + t), (cx + t, cy + t),
                (cx + t, y1), (cx - t, y1), (cx - t, cy + t), (x0, cy + t), (x0, cy - t), (cx - t, cy - t)]
    if shape == "diamond":
        return [(cx, y0), (cx + r * 0.6, cy), (cx, y1), (cx - r * 0.6, cy)]
    if shape == "arrow":
        t = r * 0.3
        return [(x0, cy - t), (cx, cy - t), (cx, y0 + r * 0.2), (x1, cy), (cx, y1 - r * 0.2), (cx, cy + t), (x0, cy + t)]
    if shape == "bar":
        return [(x0, cy - r * 0.3), (x1, cy - r * 0.3), (x1, cy + r * 0.3), (x0, cy + r * 0.3)]
    if shape == "chevron":
        t = r * 0.45
        return [(x0, y0 + t), (cx, y1 - t - r * 0.45), (x1, y0 + t), (x1, y0 + 2 * t), (cx, y1 - r * 0.2), (x0, y0 + 2 * t)]
    if shape == "trapezoid":
        return [(cx - r * 0.45, y0 + r * 0.3), (cx + r * 0.45, y0 + r * 0.3), (x1, y1 - r * 0.3), (x0, y1 - r * 0.3)]
    if shape == "heart":
        t = np.linspace(0, 2 * np.pi, 40, endpoint=False)
        hx, hy = 16 * np.sin(t) ** 3, 13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t)
        return [(cx + r * x / 17, cy - r * (y + 2.5) / 17) for x, y in zip(hx, hy)]
    if shape == "crescent":  # the unit disc less a disc of radius 0.8 centred 0.5 to its right
        meet = np.arccos(0.61)  # where the two circles cross, as an angle on the outer one
        outer = np.linspace(meet, 2 * np.pi - meet, 24)
        inner = np.linspace(2 * np.pi - np.arctan2(0.79, 0.11), np.arctan2(0.79, 0.11), 24)
        return [(cx + r * np.cos(a), cy - r * np.sin(a)) for a in outer] + [
            (cx + r * (0.5 + 0.8 * np.cos(a)), cy - r * 0.8 * np.sin(a)) for a in inner]
    if shape == "semicircle":
        a = np.linspace(0, np.pi, 24)
        return [(cx + r * np.cos(t), cy + r * 0.4 - r * np.sin(t)) for t in a]
    if shape == "parallelogram":
        return [(x0 + r * 0.6, cy - r * 0.55), (x1, cy - r * 0.55), (x1 - r * 0.6, cy + r * 0.55), (x0, cy + r * 0.55)]
    if shape == "hourglass":
        return [(x0 + r * 0.15, y0), (x1 - r * 0.15, y0), (cx + r * 0.1, cy), (x1 - r * 0.15, y1), (x0 + r * 0.15, y1),
                (cx - r * 0.1, cy)]
    if shape == "kite":
        return [(cx, y0), (cx + r * 0.7, cy - r * 0.3), (cx, y1), (cx - r * 0.7, cy - r * 0.3)]
    if shape == "house":
        return [(cx, y0), (x1 - r * 0.1, cy - r * 0.2), (x1 - r * 0.1, y1), (x0 + r * 0.1, y1), (x0 + r * 0.1, cy - r * 0.2)]
    raise ValueError(f"unknown shape {shape!r}; known: {', '.join(SHAPES + EXTRA_SHAPES)}")


# --- which colour-shape objects training sees -------------------------------------------


def seen_combos(coverage: float = DEFAULT_COVERAGE, seed: int = DEFAULT_WORLD_SEED) -> frozenset[Combo]:
    """The colour-shape objects training may show, a ``coverage`` fraction of all of them.

    One diagonal of the colour x shape grid is always seen, so every colour and every shape
    is learned; the rest are drawn with ``seed``. The complement is the held-out set.
    """
    if not 0.0 < coverage <= 1.0:
        raise ValueError(f"coverage must be in (0, 1], got {coverage}")
    colors = list(COLORS)
    diagonal = [(c, SHAPES[i % len(SHAPES)]) for i, c in enumerate(colors)]
    rest = [c for c in ALL_COMBOS if c not in diagonal]
    rng = np.random.default_rng(seed)
    rng.shuffle(rest)
    n = max(len(diagonal), int(round(coverage * len(ALL_COMBOS))))
    return frozenset(diagonal + rest[: n - len(diagonal)])


def training_combos(coverage: float = DEFAULT_COVERAGE, extra: int = 0) -> frozenset[Combo]:
    """What training shows: the seen objects, plus every object with one of the first ``extra`` extra colours or shapes."""
    seen = seen_combos(coverage)
    if not 0 <= extra <= min(len(EXTRA_COLORS), len(EXTRA_SHAPES)):
        raise ValueError(f"extra must be 0 to {min(len(EXTRA_COLORS), len(EXTRA_SHAPES))}, got {extra}")
    colors, shapes = list(EXTRA_COLORS)[:extra], EXTRA_SHAPES[:extra]
    extras = {(c, s) for c in [*COLORS, *colors] for s in [*SHAPES, *shapes] if c in colors or s in shapes}
    return seen | frozenset(extras)


def heldout_combos(coverage: float = DEFAULT_COVERAGE, seed: int = DEFAULT_WORLD_SEED) -> frozenset[Combo]:
    return frozenset(ALL_COMBOS) - seen_combos(coverage, seed)


# --- sampling ---------------------------------------------------------------------------


def place_objects(rng: np.random.Generator, extents: list[float], tries: int = 200) -> list[tuple[float, float]]:
    """Non-overlapping centres for squares of the given extents (with a small gap)."""
    for _ in range(tries):
        centres: list[tuple[float, float]] = []
        for e in extents:
            for _ in range(50):
                c = tuple(float(v) for v in rng.uniform(e / 2 + 0.02, 1 - e / 2 - 0.02, size=2))
                if all(
                    max(abs(c[0] - o[0]), abs(c[1] - o[1])) > (e + oe) / 2 + 0.03
                    for o, oe in zip(centres, extents)
                ):
                    centres.append(c)  # type: ignore[arg-type]
                    break
            else:
                break
        if len(centres) == len(extents):
            return centres
    raise RuntimeError("could not place objects without overlap")


def random_scene(
    rng: np.random.Generator,
    combos: frozenset[Combo] | tuple[Combo, ...],
    n_objects: int | None = None,
    style: Style = "plain",
    benchmark_share: float | None = None,
) -> Scene:
    """1 to 4 distinct objects drawn from ``combos`` at random sizes and places.

    With ``benchmark_share`` an object is one of the benchmark's own colour-shape objects (``ALL_COMBOS``) with
    that probability, else a training-only one; without it every object of ``combos`` is equally likely.
    """
    pool, p = _weighted_pool(combos, benchmark_share)
    n = int(n_objects or rng.choice(len(N_OBJECTS_P), p=N_OBJECTS_P) + 1)
    picks = [pool[i] for i in rng.choice(len(pool), size=n, replace=False, p=p)]
    sizes = [str(rng.choice(list(SIZES))) for _ in picks]
    centres = place_objects(rng, [SIZES[s] for s in sizes])
    objs = tuple(WorldObject(c, s, z, x, y) for (c, s), z, (x, y) in zip(picks, sizes, centres))
    return Scene(objs, style)


@functools.lru_cache(maxsize=16)
def _weighted_pool(combos: frozenset[Combo] | tuple[Combo, ...], benchmark_share: float | None
                   ) -> tuple[tuple[Combo, ...], np.ndarray | None]:
    """``combos`` in a fixed order and their probabilities (None: even), worked out once per pool (a training batch draws
    some 130 scenes from the same one)."""
    pool = tuple(sorted(combos))
    return pool, None if benchmark_share is None else _share_weights(pool, benchmark_share)


def _share_weights(pool: tuple[Combo, ...], benchmark_share: float) -> np.ndarray:
    """Probabilities over ``pool`` that give its benchmark objects ``benchmark_share`` of the mass, evenly."""
    if not 0.0 < benchmark_share < 1.0:
        raise ValueError(f"benchmark_share must be in (0, 1), got {benchmark_share}")
    ours = np.array([c in _BENCHMARK_OBJECTS for c in pool])
    if ours.all() or not ours.any():
        raise ValueError("benchmark_share needs both benchmark and training-only objects (--extra-concepts K > 0)")
    return np.where(ours, benchmark_share / ours.sum(), (1 - benchmark_share) / (~ours).sum())


_BENCHMARK_OBJECTS = frozenset(ALL_COMBOS)
_PALETTE_AND_BACKGROUND = np.array([*COLORS.values(), BACKGROUND], dtype=float)


def off_palette_paint(rng: np.random.Generator) -> tuple[int, int, int]:
    """A random RGB colour at least ``PAINT_MIN_DISTANCE`` from every palette colour and the background."""
    while True:
        rgb = rng.integers(0, 256, size=3)
        if np.linalg.norm(_PALETTE_AND_BACKGROUND - rgb, axis=1).min() >= PAINT_MIN_DISTANCE:
            return (int(rgb[0]), int(rgb[1]), int(rgb[2]))


def relation_word(a: WorldObject, b: WorldObject) -> str:
    """How ``a`` stands to ``b`` along the axis where they differ most."""
    dx, dy = a.cx - b.cx, a.cy - b.cy
    if abs(dx) >= abs(dy):
        return "to the left of" if dx < 0 else "to the right of"
    return "above" if dy < 0 else "below"


def list_caption(
    objects: list[WorldObject] | tuple[WorldObject, ...],
    with_size: bool = False,
    omit: list[Literal["color", "shape"] | None] | None = None,
) -> str:
    omit = omit or [None] * len(objects)
    return " and ".join(o.phrase(with_size, leave) for o, leave in zip(objects, omit))


def relation_caption(a: WorldObject, b: WorldObject, omit: Literal["color", "shape"] | None = None) -> str:
    return f"{a.phrase(omit=omit)} {relation_word(a, b)} {b.phrase(omit=omit)}"


def training_caption(scene: Scene, rng: np.random.Generator, partial: float = 0.0) -> str:
    """A caption for training: objects in random order; relations only for two objects.

    With probability ``partial`` an object of a list caption is described by one concept only
    (its colour or its shape, equally often), as people often describe things. A grey or
    unnamed scene's caption names no colour.
    """
    objs = [scene.objects[i] for i in rng.permutation(len(scene.objects))]
    r = rng.random()
    grey: Literal["color"] | None = "color" if scene.style in ("grey", "unnamed") else None
    if len(objs) == 2 and r < 0.3:
        return relation_caption(objs[0], objs[1], grey)
    omit = [grey or _omitted(rng, partial) for _ in objs] if partial > 0 or grey else None
    return list_caption(objs, with_size=r >= 0.65, omit=omit)


def _omitted(rng: np.random.Generator, partial: float) -> Literal["color", "shape"] | None:
    if rng.random() >= partial:
        return None
    return "color" if rng.random() < 0.5 else "shape"


def training_batch(
    rng: np.random.Generator,
    batch_size: int,
    combos: frozenset[Combo],
    partial: float = 0.0,
    grey: float = 0.0,
    unnamed: float = 0.0,
    benchmark_share: float | None = None,
) -> tuple[list[Scene], list[str]]:
    """A batch of scenes with captions, no caption repeated (repeats would be false negatives).

    With probability ``grey`` a scene is a black-and-white picture, with probability ``unnamed``
    its objects are painted in random colours outside the palette; either way its caption names
    shapes only. ``benchmark_share`` weighs the objects as ``random_scene`` says; since a repeated caption is
    drawn again, and single benchmark objects repeat most, their share of a batch ends a little lower.
    """
    scenes: list[Scene] = []
    captions: list[str] = []
    seen: set[str] = set()
    while len(scenes) < batch_size:
        style = _training_style(rng, grey, unnamed)
        scene = random_scene(rng, combos, style=style, benchmark_share=benchmark_share)
        if style == "unnamed":
            scene = replace(scene, paints=tuple(off_palette_paint(rng) for _ in scene.objects))
        caption = training_caption(scene, rng, partial)
        if caption in seen:
            continue
        seen.add(caption)
        scenes.append(scene)
        captions.append(caption)
    return scenes, captions


def _training_style(rng: np.random.Generator, grey: float, unnamed: float) -> Style:
    if grey <= 0 and unnamed <= 0:
        return "plain"  # no draw: the stream stays the plain one
    r = rng.random()
    return "grey" if r < grey else "unnamed" if r < grey + unnamed else "plain"


# --- the controlled benchmark -------------------------------------------------------------


def _split_rng(split: str, kind: str, seed: int) -> np.random.Generator:
    digest = hashlib.sha256(f"{seed}/{split}/{kind}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def _parse_split(split: str) -> tuple[str, int]:
    """A split's kind of items (id, heldout, shift) and the seed offset of its own random stream.

    ``val-*`` splits hold the same kinds of items as the test splits (the held-out objects are the same: training
    never sees them) but other scenes and items, from a stream of their own, for choosing recipes, seeds, widths
    and hyper-parameters without reading the test items.
    """
    base, offset = (split[len(VAL_PREFIX):], 2000) if split.startswith(VAL_PREFIX) else (split, 1000)
    if base not in SPLITS:
        raise ValueError(f"unknown split {split!r}; known: {', '.join(SPLITS + VAL_SPLITS)}")
    return base, offset


def _two_objects_ok(split: str, combos: list[Combo], seen: frozenset[Combo]) -> bool:
    """Split constraint on the combos appearing in an item's image 0 and image 1 (2 + 2)."""
    if split in ("id", "shift"):
        return all(c in seen for c in combos)
    return any(c not in seen for c in combos[:2]) and any(c not in seen for c in combos[2:])


def _swap_item(rng: np.random.Generator, kind: str, split: str, seen: frozenset[Combo]) -> SwapItem:
    style: Style = "shift" if split == "shift" else "plain"
    colors, shapes = list(COLORS), list(SHAPES)
    while True:
        c1, c2 = rng.choice(colors, size=2, replace=False)
        s1, s2 = rng.choice(shapes, size=2, replace=False)
        c1, c2, s1, s2 = str(c1), str(c2), str(s1), str(s2)
        if kind == "attribute":
            after = [(c2, s1), (c1, s2)]
        elif kind == "object":
            after = [(c1, s2), (c2, s1)]
        else:
            after = [(c1, s1), (c2, s2)]
        if _two_objects_ok(split, [(c1, s1), (c2, s2)] + after, seen):
            break
    if kind == "size":
        sizes = ["large", "small"]
    else:
        sizes = [str(rng.choice(list(SIZES)))] * 2
    if kind == "relation":
        centres = _relation_centres(rng, max(SIZES[s] for s in sizes))
    else:
        centres = place_objects(rng, [max(SIZES.values())] * 2)
    a = WorldObject(c1, s1, sizes[0], *centres[0])
    b = WorldObject(c2, s2, sizes[1], *centres[1])
    if kind == "attribute":
        a2, b2 = replace(a, color=c2), replace(b, color=c1)
    elif kind == "object":
        a2, b2 = replace(a, shape=s2), replace(b, shape=s1)
    elif kind == "size":
        a2, b2 = replace(a, size=sizes[1]), replace(b, size=sizes[0])
    elif kind == "relation":
        a2, b2 = replace(a, cx=b.cx, cy=b.cy), replace(b, cx=a.cx, cy=a.cy)
    else:
        raise ValueError(f"unknown kind {kind!r}; known: {', '.join(KINDS)}")
    img0, img1 = Scene((a, b), style), Scene((a2, b2), style)
    if kind == "relation":
        cap0, cap1 = relation_caption(a, b), relation_caption(b2, a2)
    else:
        order = rng.permutation(2)
        with_size = kind == "size"
        cap0 = list_caption([(a, b)[i] for i in order], with_size)
        cap1 = list_caption([(a2, b2)[i] for i in order], with_size)
    return SwapItem(kind, split, (img0, img1), (cap0, cap1))


def training_swaps(rng: np.random.Generator, n: int, seen: frozenset[Combo]) -> list[SwapItem]:
    """Swap items of random kinds over training objects only, drawn from ``rng`` (not the benchmark's streams)."""
    return [_swap_item(rng, str(rng.choice(KINDS)), "id", seen) for _ in range(n)]


def _relation_centres(rng: np.random.Generator, extent: float) -> list[tuple[float, float]]:
    """Two centres clearly apart along one axis and close along the other."""
    lo, hi = extent / 2 + 0.02, 1 - extent / 2 - 0.02
    while True:
        p, q = rng.uniform(lo, hi, size=2)
        if abs(p - q) < extent + 0.12:
            continue
        r = rng.uniform(lo, hi)
        jitter = rng.uniform(-0.08, 0.08, size=2)
        u = (float(np.clip(r + jitter[0], lo, hi)), float(np.clip(r + jitter[1], lo, hi)))
        if rng.random() < 0.5:
            return [(float(p), u[0]), (float(q), u[1])]
        return [(u[0], float(p)), (u[1], float(q))]


def swap_items(
    split: str,
    kind: str,
    n: int,
    coverage: float = DEFAULT_COVERAGE,
    seed: int = DEFAULT_WORLD_SEED,
) -> list[SwapItem]:
    """``n`` deterministic swap items of one kind for one split."""
    base, offset = _parse_split(split)
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; known: {', '.join(KINDS)}")
    seen = seen_combos(coverage, seed)
    rng = _split_rng(base, kind, seed + offset)
    return [replace(_swap_item(rng, kind, base, seen), split=split) for _ in range(n)]


def single_captions() -> tuple[str, ...]:
    return tuple(WorldObject(c, s, "small", 0.5, 0.5).phrase() for c, s in ALL_COMBOS)


def single_items(
    split: str, n: int, coverage: float = DEFAULT_COVERAGE, seed: int = DEFAULT_WORLD_SEED
) -> list[SingleItem]:
    """``n`` single-object images; id and shift use seen objects, heldout the unseen ones."""
    base, offset = _parse_split(split)
    combos = sorted(heldout_combos(coverage, seed) if base == "heldout" else seen_combos(coverage, seed))
    if not combos:
        raise ValueError(f"split {split!r} has no objects at coverage {coverage}")
    rng = _split_rng(base, "single", seed + offset)
    caps = single_captions()
    style: Style = "shift" if base == "shift" else "plain"
    items = []
    for _ in range(n):
        scene = random_scene(rng, (combos[rng.integers(len(combos))],), 1, style)
        items.append(SingleItem(split, scene, ALL_COMBOS.index(scene.objects[0].combo), caps))
    return items
