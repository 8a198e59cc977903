"""Which colour-shape objects training sees; the rest are held out."""

from __future__ import annotations

import itertools

import numpy as np

from explorer.world.palette import ALL_COMBOS, COLORS, EXTRA_COLORS, EXTRA_SHAPES, SHAPES, Combo

DEFAULT_COVERAGE = 0.75
DEFAULT_WORLD_SEED = 0


def seen_combos(coverage: float = DEFAULT_COVERAGE, seed: int = DEFAULT_WORLD_SEED) -> frozenset[Combo]:
    """The benchmark's colour-shape objects training may show, a ``coverage`` fraction of all of them (``seen_in``)."""
    return seen_in(tuple(COLORS), SHAPES, coverage, seed)


def seen_in(colors: tuple[str, ...], shapes: tuple[str, ...], coverage: float, seed: int = DEFAULT_WORLD_SEED
            ) -> frozenset[Combo]:
    """A ``coverage`` fraction of the colours x shapes grid, the objects training may show.

    One diagonal of the grid is always seen, so every colour and every shape is learned; the rest are drawn with
    ``seed``. The complement is the held-out set.
    """
    if not 0.0 < coverage <= 1.0:
        raise ValueError(f"coverage must be in (0, 1], got {coverage}")
    combos = list(itertools.product(colors, shapes))
    diagonal = [(colors[i % len(colors)], shapes[i % len(shapes)]) for i in range(max(len(colors), len(shapes)))]
    rest = [c for c in combos if c not in diagonal]
    rng = np.random.default_rng(seed)
    rng.shuffle(rest)
    n = max(len(diagonal), int(round(coverage * len(combos))))
    return frozenset(diagonal + rest[: n - len(diagonal)])


def training_combos(coverage: float = DEFAULT_COVERAGE, extra: int = 0) -> frozenset[Combo]:
    """What training shows: the seen objects, plus every object with one of the first ``extra`` extra colours or
    shapes."""
    seen = seen_combos(coverage)
    if not 0 <= extra <= min(len(EXTRA_COLORS), len(EXTRA_SHAPES)):
        raise ValueError(f"extra must be 0 to {min(len(EXTRA_COLORS), len(EXTRA_SHAPES))}, got {extra}")
    colors, shapes = list(EXTRA_COLORS)[:extra], EXTRA_SHAPES[:extra]
    extras = {(c, s) for c in [*COLORS, *colors] for s in [*SHAPES, *shapes] if c in colors or s in shapes}
    return seen | frozenset(extras)


def heldout_combos(coverage: float = DEFAULT_COVERAGE, seed: int = DEFAULT_WORLD_SEED) -> frozenset[Combo]:
    return frozenset(ALL_COMBOS) - seen_combos(coverage, seed)

