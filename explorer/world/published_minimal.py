"""The world's versions of the minimal-pair sets of 2024: VisMin (two pictures a minimal change apart: an object, an
attribute, a spatial relation, a count), SPEC (a picture told among captions and a caption among pictures that
differ in one thing: relative position, size, existence, count) and MMVP-VLM (pairs of pictures in the visual
patterns the world has: position, colour, count), drawn per split like its swaps.

What the world cannot say is left out: SPEC's absolute position (its captions never place one object in the
picture, only one object against another), MMVP's orientation, features, state, structure, text and viewpoint (its
shapes are never turned, worn, read or seen from elsewhere). Its counts are said as the world says them, by naming
each object ("a red circle and a red circle"): the world's captions have no number words.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import groupby
from typing import Sequence

from explorer.core.items import NO_CAPTION, Item
from explorer.world.benchmark import _pictures, swap_item
from explorer.world.captions import list_caption
from explorer.world.coverage import DEFAULT_COVERAGE, DEFAULT_WORLD_SEED
from explorer.world.palette import SIZES
from explorer.world.published import _stream, _third, minimal_change, whatsup_items
from explorer.world.sampling import place_objects

VISMIN_CHANGES = {"object": "object", "attribute": "attribute", "relation": "spatial",
                  "counting": "count"}  # VisMin's category names -> the world's change
VISMIN_KINDS = tuple(VISMIN_CHANGES)
MMVP_PATTERNS = {"Positional and Relational Context": "spatial", "Color and Appearance": "attribute",
                 "Quantity and Count": "count"}  # MMVP's pattern names -> the world's change
COUNTS = (1, 2, 3)


def _changed(rng, base: str, seen: frozenset, kind: str, split: str) -> Item:
    """A 2 x 2 item a minimal change apart: ``spatial`` the objects trading places, else ``minimal_change``'s."""
    if kind == "spatial":
        return replace(swap_item(rng, "relation", base, seen), split=split)
    return minimal_change(rng, base, seen, kind, split)


def vismin_items(split: str, n: int, coverage: float = DEFAULT_COVERAGE,
                 seed: int = DEFAULT_WORLD_SEED) -> list[Item]:
    """VisMin's four categories, ``n`` items each: one object drawn as another shape, one recoloured, the two
    trading places, one more object; text, image and group as VisMin scores them."""
    base, seen, rng = _stream(split, "vismin", coverage, seed)
    return [replace(_changed(rng, base, seen, change, split), kind=kind, id=f"{split}/{kind}/{i}")
            for kind, change in VISMIN_CHANGES.items() for i in range(n)]


def mmvp_items(split: str, n: int, coverage: float = DEFAULT_COVERAGE,
               seed: int = DEFAULT_WORLD_SEED) -> list[Item]:
    """MMVP-VLM's patterns the world has, ``n`` pairs each, named as MMVP names them; scored by its pair accuracy
    (both captions pick their own picture: the image score). The captions are the world's, without MMVP's "a photo
    of " (a phrase the world's model never read)."""
    base, seen, rng = _stream(split, "mmvp", coverage, seed)
    return [replace(_changed(rng, base, seen, change, split), kind=pattern, id=f"{split}/{change}/{i}")
            for pattern, change in MMVP_PATTERNS.items() for i in range(n)]


def both_ways(kind: str, pictures: Sequence, captions: Sequence[str], split: str, key: str) -> list[Item]:
    """SPEC's two directions on pictures whose own captions are ``captions`` in order: each picture told among the
    captions (``KIND i2t``), each caption among the pictures (``KIND t2i``)."""
    info = lambda d: {"direction": d}  # noqa: E731
    i2t = [Item(f"{kind} i2t", (p,), tuple(captions), right=(j,), split=split, id=f"{key}/i2t/{j}", info=info("i2t"))
           for j, p in enumerate(pictures)]
    t2i = [Item(f"{kind} t2i", tuple(pictures), (c,), right=tuple(0 if k == j else NO_CAPTION for k in
                                                                     range(len(pictures))),
                split=split, id=f"{key}/t2i/{j}", info=info("t2i")) for j, c in enumerate(captions)]
    return i2t + t2i


def spec_items(split: str, n: int, coverage: float = DEFAULT_COVERAGE,
               seed: int = DEFAULT_WORLD_SEED) -> list[Item]:
    """SPEC's subsets the world can say, ``n`` groups each, both ways: relative position (world-whatsup's four
    pictures of an object pair and their four captions), absolute size (one object small and large), existence (two
    objects, the second another object in the other picture) and count (one, two and three of one object)."""
    base, seen, rng = _stream(split, "spec", coverage, seed)
    items: list[Item] = []
    places = whatsup_items(split, 4 * n, coverage, seed)
    for k, (_, group) in enumerate(groupby(places, key=lambda it: it.info["pair"])):
        group = list(group)
        items += both_ways("relative_spatial", [it.images[0] for it in group], group[0].captions, split,
                           f"{split}/relative_spatial/{k}")
    for k in range(n):
        a, b = swap_item(rng, "object", base, seen).images[0].objects
        sized = [replace(a, size=s, cx=0.5, cy=0.5) for s in SIZES]
        items += both_ways("absolute_size", _pictures(rng, base, *[(o,) for o in sized]),
                           [o.phrase(with_size=True) for o in sized], split, f"{split}/absolute_size/{k}")
        c = replace(_third(rng, a, b), size=b.size, cx=b.cx, cy=b.cy)
        items += both_ways("existence", _pictures(rng, base, (a, b), (a, c)),
                           [list_caption([a, b]), list_caption([a, c])], split, f"{split}/existence/{k}")
        many = [tuple(replace(a, size="small", cx=x, cy=y) for x, y in place_objects(rng, [SIZES["small"]] * m))
                for m in COUNTS]
        items += both_ways("count", _pictures(rng, base, *many), [list_caption(list(objs)) for objs in many], split,
                           f"{split}/count/{k}")
    return items


