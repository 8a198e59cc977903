"""Object spaces of other sizes than the benchmark's 8 x 4, for the coverage sweep (the binding paper).

A space is the first ``n_colors`` colours and ``n_shapes`` shapes of the benchmark's followed by the training-only
ones (``palette``): 8 x 4 is the benchmark's own grid, 16 x 12 adds 8 colours and 8 shapes. Training sees a
``coverage`` fraction of its objects (``coverage.seen_in``); recognition is read on the rest, each held-out object
named among the captions of every object of the space.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from explorer.core.items import Item
from explorer.world.benchmark import object_captions, object_items, split_rng, swap_item
from explorer.world.coverage import DEFAULT_WORLD_SEED, seen_in
from explorer.world.palette import COLORS, EXTRA_COLORS, EXTRA_SHAPES, SHAPES, Combo

ALL_COLORS: tuple[str, ...] = (*COLORS, *EXTRA_COLORS)
ALL_SHAPES: tuple[str, ...] = (*SHAPES, *EXTRA_SHAPES)


@dataclass(frozen=True)
class ObjectSpace:
    """The ``n_colors`` x ``n_shapes`` grid of colour-shape objects."""

    n_colors: int
    n_shapes: int

    def __post_init__(self) -> None:
        if not (2 <= self.n_colors <= len(ALL_COLORS) and 2 <= self.n_shapes <= len(ALL_SHAPES)):
            raise ValueError(f"an object space has 2 to {len(ALL_COLORS)} colours and 2 to {len(ALL_SHAPES)} shapes, "
                             f"not {self.n_colors} x {self.n_shapes}")

    @classmethod
    def parse(cls, text: str) -> ObjectSpace:
        """``"16x12"`` -> 16 colours x 12 shapes."""
        match = re.fullmatch(r"(\d+)x(\d+)", text.strip())
        if match is None:
            raise ValueError(f"an object space is COLOURSxSHAPES, e.g. 16x12, not {text!r}")
        return cls(int(match[1]), int(match[2]))

    @property
    def name(self) -> str:
        return f"{self.n_colors}x{self.n_shapes}"

    @property
    def size(self) -> int:
        return self.n_colors * self.n_shapes

    @property
    def colors(self) -> tuple[str, ...]:
        return ALL_COLORS[: self.n_colors]

    @property
    def shapes(self) -> tuple[str, ...]:
        return ALL_SHAPES[: self.n_shapes]

    def seen(self, coverage: float, seed: int = DEFAULT_WORLD_SEED) -> frozenset[Combo]:
        return seen_in(self.colors, self.shapes, coverage, seed)

    def heldout(self, coverage: float, seed: int = DEFAULT_WORLD_SEED) -> list[Combo]:
        seen = self.seen(coverage, seed)
        return [(c, s) for c in self.colors for s in self.shapes if (c, s) not in seen]

    def captions(self) -> tuple[str, ...]:
        return object_captions(self.colors, self.shapes)

    def heldout_items(self, n: int, coverage: float, seed: int = DEFAULT_WORLD_SEED) -> list[Item]:
        """``n`` single-object images of held-out objects, each to be named among every object's caption."""
        combos = self.heldout(coverage, seed)
        if not combos:
            raise ValueError(f"coverage {coverage} of {self.name} holds no object out")
        rng = split_rng(f"space-{self.name}-c{coverage}", "single", seed)
        return object_items(rng, combos, self.captions(), n, "heldout")

    def heldout_swaps(self, n: int, coverage: float, kind: str = "attribute", seed: int = DEFAULT_WORLD_SEED
                      ) -> list[Item]:
        """``n`` swap items of ``kind`` over the space's objects, each image holding a held-out object (the
        benchmark's ``heldout`` rule): a binding reading for objects training never showed."""
        if not self.heldout(coverage, seed):
            raise ValueError(f"coverage {coverage} of {self.name} holds no object out")
        rng = split_rng(f"space-{self.name}-c{coverage}", kind, seed)
        return [swap_item(rng, kind, "heldout", self.seen(coverage, seed), (self.colors, self.shapes))
                for _ in range(n)]


BENCHMARK_SPACE = ObjectSpace(len(COLORS), len(SHAPES))  # the benchmark's own 8 x 4
