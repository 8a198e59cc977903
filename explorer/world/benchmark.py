"""The controlled benchmark: swap items and single-object items per split, each split its own random stream."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import numpy as np

from explorer.core.items import Item
from explorer.world.canvases import CANVAS_SPLITS, canvas_pictures
from explorer.world.captions import list_caption, relation_caption
from explorer.world.coverage import DEFAULT_COVERAGE, DEFAULT_WORLD_SEED, heldout_combos, seen_combos
from explorer.world.drawings import DRAWN_BACKGROUNDS, DRAWN_PREFIX, Drawing, visible_on
from explorer.world.looks import random_look, style_look
from explorer.world.palette import ALL_COMBOS, COLORS, FILLS, SHAPES, SIZES, Combo, Style
from explorer.world.sampling import place_objects, random_scene
from explorer.world.scene import Scene, WorldObject

KINDS: tuple[str, ...] = ("attribute", "size", "relation", "object")
# The test splits, read only to report: id (seen objects), heldout (unseen objects), shift (outlined objects, a look
# training never shows), style (seen objects in looks no training stream uses: held-out background hues, gradients)
SPLITS: tuple[str, ...] = ("id", "heldout", "shift", "style")
# Seen objects drawn by another renderer than the world's (``world.drawings``), on four backgrounds
DRAWN_SPLITS: tuple[str, ...] = tuple(DRAWN_PREFIX + b for b in DRAWN_BACKGROUNDS)
# Seen objects on canvases that are not square, or small on theirs (``world.canvases``): the looks the view of a
# picture is chosen on (their val splits) and reported on
VIEW_SPLITS: tuple[str, ...] = CANVAS_SPLITS
VAL_PREFIX = "val-"
# The same kinds, for choices. Val guards a choice against the test items' noise, not against the choice of the 8
# held-out objects, which val-heldout shares with heldout: a split with held-out objects of its own would need a model
# that never saw them, and the shipped one saw the other 24 of the 32 objects (docs/recognition.md).
VAL_SPLITS: tuple[str, ...] = tuple(VAL_PREFIX + s for s in SPLITS + DRAWN_SPLITS + VIEW_SPLITS)


def split_rng(split: str, kind: str, seed: int) -> np.random.Generator:
    digest = hashlib.sha256(f"{seed}/{split}/{kind}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def _parse_split(split: str) -> tuple[str, int]:
    """A split's kind of items (id, heldout, shift) and the seed offset of its own random stream.

    ``val-*`` splits hold the same kinds of items as the test splits (the held-out objects are the same: training
    never sees them) but other scenes and items, from a stream of their own, for choosing recipes, seeds, widths
    and hyper-parameters without reading the test items.
    """
    base, offset = (split[len(VAL_PREFIX):], 2000) if split.startswith(VAL_PREFIX) else (split, 1000)
    if base not in SPLITS + DRAWN_SPLITS + VIEW_SPLITS:
        known = SPLITS + DRAWN_SPLITS + VIEW_SPLITS + VAL_SPLITS
        raise ValueError(f"unknown split {split!r}; known: {', '.join(known)}")
    return base, offset


def _two_objects_ok(split: str, combos: list[Combo], seen: frozenset[Combo]) -> bool:
    """Split constraint on the combos appearing in an item's image 0 and image 1 (2 + 2)."""
    if split != "heldout":
        return all(c in seen for c in combos)
    return any(c not in seen for c in combos[:2]) and any(c not in seen for c in combos[2:])


def _colours(split: str) -> list[str]:
    """The colours a split's objects may have: on a drawing, those that stand out from its background."""
    if split.startswith(DRAWN_PREFIX):
        return [c for c in COLORS if visible_on(DRAWN_BACKGROUNDS[split[len(DRAWN_PREFIX):]], c)]
    return list(COLORS)


def _pictures(rng: np.random.Generator, split: str, *objects: tuple[WorldObject, ...]) -> tuple:
    """Each tuple of objects as the split draws it; an item's pictures share one look."""
    if split.startswith(DRAWN_PREFIX):
        return tuple(Drawing(objs, DRAWN_BACKGROUNDS[split[len(DRAWN_PREFIX):]]) for objs in objects)
    if split in VIEW_SPLITS:
        return canvas_pictures(rng, split, *objects)
    if split == "style":
        look = style_look(rng, [FILLS[o.color] for o in objects[0]])
        return tuple(Scene(objs, look=look) for objs in objects)
    style: Style = "shift" if split == "shift" else "plain"
    return tuple(Scene(objs, style) for objs in objects)


def swap_item(rng: np.random.Generator, kind: str, split: str, seen: frozenset[Combo],
               space: tuple[tuple[str, ...], tuple[str, ...]] | None = None) -> Item:
    """One swap item of ``kind`` for ``split`` (``space``: its colours and shapes, if not the benchmark's)."""
    colors, shapes = (list(space[0]), list(space[1])) if space else (_colours(split), list(SHAPES))
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
    img0, img1 = _pictures(rng, split, (a, b), (a2, b2))
    if kind == "relation":
        cap0, cap1 = relation_caption(a, b), relation_caption(b2, a2)
    else:
        order = rng.permutation(2)
        with_size = kind == "size"
        cap0 = list_caption([(a, b)[i] for i in order], with_size)
        cap1 = list_caption([(a2, b2)[i] for i in order], with_size)
    return Item(kind, (img0, img1), (cap0, cap1), split=split)


def training_swaps(rng: np.random.Generator, n: int, seen: frozenset[Combo], varied: float = 0.0) -> list[Item]:
    """Swap items of random kinds over training objects only, drawn from ``rng`` (not the benchmark's streams); with
    probability ``varied`` an item's two scenes share one random training look (``world.looks.random_look``)."""
    items = [swap_item(rng, str(rng.choice(KINDS)), "id", seen) for _ in range(n)]
    if varied <= 0:
        return items
    for i, item in enumerate(items):
        if rng.random() < varied:
            look = random_look(rng, [FILLS[o.color] for o in item.images[0].objects])
            items[i] = replace(item, images=tuple(replace(scene, look=look) for scene in item.images))
    return items


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
) -> list[Item]:
    """``n`` deterministic swap items of one kind for one split."""
    base, offset = _parse_split(split)
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; known: {', '.join(KINDS)}")
    seen = seen_combos(coverage, seed)
    rng = split_rng(base, kind, seed + offset)
    return [replace(swap_item(rng, kind, base, seen), split=split) for _ in range(n)]


def object_captions(colors=tuple(COLORS), shapes=SHAPES) -> tuple[str, ...]:
    """One caption per colour-shape object of the grid ("a red circle", ...), colour by colour."""
    return tuple(WorldObject(c, s, "small", 0.5, 0.5).phrase() for c in colors for s in shapes)


def single_captions() -> tuple[str, ...]:
    """The benchmark's 32 objects' captions, in ``ALL_COMBOS``' order."""
    return object_captions()


def object_items(rng: np.random.Generator, combos: list[Combo], captions: tuple[str, ...], n: int, split: str,
                 style: Style = "plain", draw_as: str | None = None) -> list[Item]:
    """``n`` single-object images of objects drawn from ``combos``, each to be told among ``captions``; ``draw_as``:
    the split whose pictures they are (style, drawn-*), when not the world's ``style`` of scene."""
    items = []
    for _ in range(n):
        scene = random_scene(rng, (combos[rng.integers(len(combos))],), 1, style)
        picture = _pictures(rng, draw_as, scene.objects)[0] if draw_as else scene
        items.append(Item("single", (picture,), captions, (captions.index(scene.objects[0].phrase()),), split))
    return items


def single_items(
    split: str, n: int, coverage: float = DEFAULT_COVERAGE, seed: int = DEFAULT_WORLD_SEED
) -> list[Item]:
    """``n`` single-object images, each to be told among all objects' captions (kind ``single``); heldout uses the
    unseen objects, every other split the seen ones (on a drawing, those that stand out from its background)."""
    base, offset = _parse_split(split)
    combos = sorted(heldout_combos(coverage, seed) if base == "heldout" else seen_combos(coverage, seed))
    combos = [c for c in combos if c[0] in _colours(base)]
    if not combos:
        raise ValueError(f"split {split!r} has no objects at coverage {coverage}")
    rng = split_rng(base, "single", seed + offset)
    draw_as = base if base == "style" or base in DRAWN_SPLITS + VIEW_SPLITS else None
    return object_items(rng, combos, single_captions(), n, split, "shift" if base == "shift" else "plain", draw_as)


NAMING_KINDS: tuple[str, ...] = ("shape", "colour")


def naming_items(split: str, kind: str, n: int, coverage: float = DEFAULT_COVERAGE,
                 seed: int = DEFAULT_WORLD_SEED) -> list[Item]:
    """``n`` single-object images of ``split``, each to be told between its own caption and one that names another
    shape of its colour (``shape``) or another colour of its shape (``colour``): chance 50%, either caption first."""
    if kind not in NAMING_KINDS:
        raise ValueError(f"unknown naming kind {kind!r}; known: {', '.join(NAMING_KINDS)}")
    base, offset = _parse_split(split)
    colours = _colours(base)
    combos = sorted(c for c in (heldout_combos if base == "heldout" else seen_combos)(coverage, seed)
                    if c[0] in colours)
    rng = split_rng(base, f"naming-{kind}", seed + offset)
    items = []
    for _ in range(n):
        colour, shape = combos[rng.integers(len(combos))]
        if kind == "shape":
            other = WorldObject(colour, str(rng.choice([s for s in SHAPES if s != shape])), "small", 0.5, 0.5)
        else:
            other = WorldObject(str(rng.choice([c for c in colours if c != colour])), shape, "small", 0.5, 0.5)
        scene = random_scene(rng, ((colour, shape),), 1, "shift" if base == "shift" else "plain")
        draw_as = base if base == "style" or base in DRAWN_SPLITS + VIEW_SPLITS else None
        picture = _pictures(rng, draw_as, scene.objects)[0] if draw_as else scene
        captions = [scene.objects[0].phrase(), other.phrase()]
        right = int(rng.integers(2))
        captions = captions if right == 0 else captions[::-1]
        items.append(Item(kind, (picture,), tuple(captions), (right,), split=split))
    return items
