"""The synthetic binding world: flat 2D shapes, exact ground truth, template captions, swap items.

Scenes live in normalized coordinates (the unit square) and are rendered at any pixel size.
Everything is driven by an explicit ``numpy.random.Generator`` so that a seed fixes it all.
Captions name objects in random order (never left to right) except relation captions, so
word order carries no layout information (DESIGN.md section 5).

One module per job: ``palette`` (concepts), ``scene`` (rendering), ``coverage`` (what training sees),
``captions``, ``sampling`` (training scenes and batches), ``benchmark`` (the controlled benchmark's splits and
items), ``space`` (object spaces of other sizes, for the coverage sweep). Callers use ``from explorer import world``
and the names below.
"""

from explorer.world import looks
from explorer.world.benchmark import (
    DRAWN_SPLITS, KINDS, NAMING_KINDS, SPLITS, VAL_PREFIX, VAL_SPLITS, VIEW_SPLITS, naming_items, single_captions,
    single_items, swap_items, training_swaps,
)
from explorer.world.captions import RELATIONS, list_caption, relation_caption, relation_word, training_caption
from explorer.world.coverage import DEFAULT_COVERAGE, DEFAULT_WORLD_SEED, heldout_combos, seen_combos, training_combos
from explorer.world.palette import (
    ALL_COMBOS, BACKGROUND, COLORS, EXTRA_COLORS, EXTRA_MIN_DISTANCE, EXTRA_SHAPES, FILLS, OUTLINE, PAINT_MIN_DISTANCE,
    SHAPES, SIZES, Combo, Style, off_palette_paint,
)
from explorer.world.sampling import N_OBJECTS_P, place_objects, random_scene, training_batch
from explorer.world.scene import Scene, WorldObject, article, background_share, flat_frame

__all__ = [
    "ALL_COMBOS", "BACKGROUND", "COLORS", "Combo", "DRAWN_SPLITS", "DEFAULT_COVERAGE", "DEFAULT_WORLD_SEED",
    "EXTRA_COLORS", "EXTRA_MIN_DISTANCE", "EXTRA_SHAPES", "FILLS", "KINDS", "NAMING_KINDS", "N_OBJECTS_P", "OUTLINE",
    "PAINT_MIN_DISTANCE", "RELATIONS", "SHAPES", "SIZES", "SPLITS", "Scene", "Style", "VAL_PREFIX", "VAL_SPLITS",
    "VIEW_SPLITS", "WorldObject", "article", "background_share", "flat_frame", "heldout_combos", "list_caption", "looks", "naming_items",
    "off_palette_paint", "place_objects", "random_scene", "relation_caption", "relation_word", "seen_combos",
    "single_captions", "single_items", "swap_items", "training_batch", "training_caption", "training_combos",
    "training_swaps",
]
