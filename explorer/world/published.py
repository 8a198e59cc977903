"""The world's versions of the published benchmarks' ideas, drawn per split like its swaps (the split's objects and
look), so that each idea has items on the embedded model with no data at hand: ColorSwap (colour words moved to
the other object, two images), What'sUp (one object left of, right of, above and below another: four images per
pair, each told among the four prepositions), SugarCrepe++ (the caption, the same objects named in the other order,
and a swap), VALSE's relations and FOIL-it pieces (the preposition replaced; a shape not in the picture), EqBen (two
pictures a visual-minimal change apart: the objects trade places, one is recoloured, one more is drawn).

VALSE's existence, plurals, counting, actions and coreference pieces have no world version: the world's captions
never negate, count, name several things with one plural noun, use verbs or pronouns, so the embedded model has
never read the words those foils change.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from explorer.core.items import Item
from explorer.world.benchmark import _parse_split, _pictures, split_rng, swap_item
from explorer.world.captions import RELATIONS, list_caption, relation_caption
from explorer.world.coverage import DEFAULT_COVERAGE, DEFAULT_WORLD_SEED, seen_combos
from explorer.world.palette import COLORS, SHAPES
from explorer.world.scene import WorldObject

WHATSUP_KIND = "controlled"  # What'sUp's controlled sets: prepositions left, right, above, below
PLACES = {"left": (-1, 0), "right": (1, 0), "above": (0, -1), "below": (0, 1)}  # a's offset from b, in RELATIONS' order
OPPOSITE = {"to the left of": "to the right of", "to the right of": "to the left of", "above": "below",
            "below": "above"}
SPREAD = 0.23  # each object's distance from the middle along the relation's axis: small objects stay apart


def _stream(split: str, name: str, coverage: float, seed: int):
    """The split's kind of pictures, its seen objects and a random stream of this benchmark's own."""
    base, offset = _parse_split(split)
    return base, seen_combos(coverage, seed), split_rng(base, name, seed + offset)


def colorswap_items(split: str, n: int, coverage: float = DEFAULT_COVERAGE,
                    seed: int = DEFAULT_WORLD_SEED) -> list[Item]:
    """ColorSwap's idea: the two objects' colour words swapped, Winoground's two pictures and two captions."""
    base, seen, rng = _stream(split, "colorswap", coverage, seed)
    return [replace(swap_item(rng, "attribute", base, seen), kind="colour swap", split=split,
                    id=f"{split}/colorswap/{i}") for i in range(n)]


def whatsup_items(split: str, n: int, coverage: float = DEFAULT_COVERAGE,
                  seed: int = DEFAULT_WORLD_SEED) -> list[Item]:
    """What'sUp's controlled sets: for each of about ``n / 4`` object pairs, one picture per preposition (a left
    of, right of, above, below b), each told among the four captions, its own first as the authors order them."""
    base, seen, rng = _stream(split, "whatsup", coverage, seed)
    items = []
    for k in range(max(1, -(-n // 4))):
        a, b = (replace(o, size="small") for o in swap_item(rng, "relation", base, seen).images[0].objects)
        middle = rng.uniform(0.42, 0.58, size=2)
        scenes = []
        for dx, dy in PLACES.values():
            at = lambda sign: middle + sign * SPREAD * np.array([dx, dy])  # noqa: E731
            scenes.append((replace(a, cx=float(at(1)[0]), cy=float(at(1)[1])),
                           replace(b, cx=float(at(-1)[0]), cy=float(at(-1)[1]))))
        for j, (prep, picture) in enumerate(zip(PLACES, _pictures(rng, base, *scenes))):
            options = [f"{a.phrase()} {w} {b.phrase()}" for w in RELATIONS]
            captions = (options.pop(j), *options)  # its own first, as the authors order them
            items.append(Item(WHATSUP_KIND, (picture,), captions, split=split, id=f"{split}/whatsup/{k}/{prep}",
                              info={"pair": (f"{k}:{a.phrase()}", b.phrase()), "preposition": prep}))
    return items


def sugarcrepe_pp_items(split: str, n: int, coverage: float = DEFAULT_COVERAGE,
                        seed: int = DEFAULT_WORLD_SEED) -> list[Item]:
    """SugarCrepe++'s idea: a picture, its caption, the same objects named in the other order (the same meaning in
    other words), and the colour or shape swap as the negative; ``n`` of each."""
    base, seen, rng = _stream(split, "sugarcrepe-pp", coverage, seed)
    items = []
    for kind, swap in (("swap_att", "attribute"), ("swap_obj", "object")):
        for i in range(n):
            item = swap_item(rng, swap, base, seen)
            other = " and ".join(reversed(item.captions[0].split(" and ")))
            items.append(Item(kind, item.images[:1], (item.captions[0], other, item.captions[1]), also_right=(1,),
                              split=split, id=f"{split}/{kind}/{i}"))
    return items


def valse_items(split: str, n: int, coverage: float = DEFAULT_COVERAGE,
                seed: int = DEFAULT_WORLD_SEED) -> list[Item]:
    """VALSE's relations piece (the preposition replaced by its opposite) and FOIL-it (one object's shape replaced
    by a shape not in the picture), ``n`` of each."""
    base, seen, rng = _stream(split, "valse", coverage, seed)
    items = []
    for i in range(n):
        item = swap_item(rng, "relation", base, seen)
        word = next(w for w in RELATIONS if f" {w} " in item.captions[0])
        foil = item.captions[0].replace(f" {word} ", f" {OPPOSITE[word]} ")
        items.append(Item("relations", item.images[:1], (item.captions[0], foil), split=split,
                          id=f"{split}/relations/{i}"))
    for i in range(n):
        item = swap_item(rng, "attribute", base, seen)
        objects = list(item.images[0].objects)
        absent = [s for s in SHAPES if s not in {o.shape for o in objects}]
        k = int(rng.integers(len(objects)))
        foiled = objects[:k] + [replace(objects[k], shape=str(rng.choice(absent)))] + objects[k + 1:]
        items.append(Item("foil-it", item.images[:1], (list_caption(objects), list_caption(foiled)), split=split,
                          id=f"{split}/foil-it/{i}"))
    return items


def eqben_items(split: str, n: int, coverage: float = DEFAULT_COVERAGE,
                seed: int = DEFAULT_WORLD_SEED) -> list[Item]:
    """EqBen's Kubric parts: two pictures a visual-minimal change apart, a caption each: the objects trade places
    (location), one object recoloured to a colour not in the picture (attribute), one more object drawn (count)."""
    base, seen, rng = _stream(split, "eqben", coverage, seed)
    items = [replace(swap_item(rng, "relation", base, seen), kind="location", split=split) for _ in range(n)]
    items += [minimal_change(rng, base, seen, kind, split) for kind in ("attribute", "count") for _ in range(n)]
    return [replace(it, id=f"{split}/{it.kind}/{i % n}") for i, it in enumerate(items)]


def minimal_change(rng: np.random.Generator, base: str, seen: frozenset, kind: str, split: str) -> Item:
    """Two objects' picture and the same picture a minimal change apart, a caption each naming its objects: one
    object recoloured to a colour not in the picture (attribute), one drawn as a shape not in it (object), one more
    object drawn (count)."""
    a, b = swap_item(rng, "object", base, seen).images[0].objects
    if kind == "attribute":
        after: tuple[WorldObject, ...] = (replace(a, color=str(rng.choice([c for c in COLORS
                                                                           if c not in (a.color, b.color)]))), b)
    elif kind == "object":
        after = (a, replace(b, shape=str(rng.choice([s for s in SHAPES if s not in (a.shape, b.shape)]))))
    else:
        after = (a, b, _third(rng, a, b))
    pictures = _pictures(rng, base, (a, b), after)
    return Item(kind, pictures, (list_caption([a, b]), list_caption(list(after))), split=split)


def _third(rng: np.random.Generator, a: WorldObject, b: WorldObject) -> WorldObject:
    """A third object of another colour and shape, where neither of the two is."""
    colour = str(rng.choice([c for c in COLORS if c not in (a.color, b.color)]))
    shape = str(rng.choice([s for s in SHAPES if s not in (a.shape, b.shape)]))
    while True:
        cx, cy = rng.uniform(0.15, 0.85, size=2)
        if all(abs(cx - o.cx) + abs(cy - o.cy) > 0.35 for o in (a, b)):
            return WorldObject(colour, shape, "small", float(cx), float(cy))
