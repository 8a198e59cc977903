"""Where a world encoder loses held-out objects: single-object readings by caption sets, pictures and probes.

Each reading is in percent over the same held-out single-object images (``world.single_items``):
- ``full``: top-1 among all 32 objects' captions (the ``world-single`` figure);
- ``errors`` and ``errors_keep_colour``: how many of those answers were wrong, and how many of the wrong
  ones still named the object's colour;
- ``among_heldout``: top-1 among the held-out objects' captions only (the seen captions taken away);
- ``shape_only`` / ``shape_only_grey``: top-1 among the shape-only captions ("a triangle"), on the picture
  and on the same picture turned black and white;
- ``probe_shape`` / ``probe_colour``: logistic-regression probes on the global image embeddings, fitted on
  seen objects (``id`` items) and read on the held-out ones.

Every top-1 reading is the global cosine's, scored by the evaluation's one loop (``accuracy.item_outcomes``, in the
chunks of ``world-single``) and judged by its rule: an image's own caption must score strictly above every other
one, so a tie fails, and the answer counted by ``errors_keep_colour`` is then the best other caption (the first of
them on a tie).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Sequence

import numpy as np
from PIL import Image
from sklearn.linear_model import LogisticRegression

from explorer import world
from explorer.core.items import DEFAULT_SIZE, Item, Renderable
from explorer.eval.accuracy import Outcome, item_outcomes
from explorer.methods import ScoringMethod, get_method

STAGES = 4  # how often ``readings`` calls its ``tick``


@dataclass(frozen=True)
class Grey:
    """A world scene turned black and white."""

    scene: Renderable

    def render(self, size: int = DEFAULT_SIZE) -> Image.Image:
        return self.scene.render(size).convert("L").convert("RGB")


def _outcomes(method: ScoringMethod, items: Sequence[Item]) -> list[Outcome]:
    return [found[method.name] for found in item_outcomes([method], items, "world-single")]


def _percent(found: Sequence[Outcome]) -> float:
    """Percent of outcomes right, unrounded (as the readings are recorded)."""
    return float(np.mean([o.correct for o in found]) * 100)


def _among(items: Sequence[Item], captions: tuple[str, ...], own: Callable[[Item], str]) -> list[Item]:
    """The items, each to be told among ``captions``, its own caption ``own(item)``."""
    return [replace(it, captions=captions, right=(captions.index(own(it)),)) for it in items]


def _probe(train_x: np.ndarray, train_y: np.ndarray, test_x: np.ndarray, test_y: np.ndarray) -> float:
    clf = LogisticRegression(max_iter=3000, C=10.0).fit(train_x, train_y)
    return float(clf.score(test_x, test_y) * 100)


def _shape(item: Item) -> str:
    return item.images[0].objects[0].shape


def _shape_of(items: Sequence[Item]) -> np.ndarray:
    return np.array([world.SHAPES.index(_shape(i)) for i in items])


def _colour_of(items: Sequence[Item]) -> np.ndarray:
    return np.array([list(world.COLORS).index(i.images[0].objects[0].color) for i in items])


def _shape_caption(shape: str) -> str:
    return f"{world.article(shape)} {shape}"


def readings(encoder, limit: int = 500, probe_limit: int = 600, tick: Callable[[], object] = lambda: None,
             prefix: str = "") -> dict:
    """The held-out readings of ``encoder`` (see the module docstring), with ``limit`` held-out images.

    ``prefix``: "" reads the test splits (to report), ``world.VAL_PREFIX`` the validation ones (to choose).
    """
    held = world.single_items(prefix + "heldout", limit)
    seen = world.single_items(prefix + "id", probe_limit)
    method = get_method("global", encoder)
    full = _outcomes(method, held)
    tick()
    heldout = tuple(c for c, combo in zip(world.single_captions(), world.ALL_COMBOS) if combo in world.heldout_combos())
    among_heldout = _outcomes(method, _among(held, heldout, lambda it: it.captions[it.right[0]]))
    shapes = _among(held, tuple(map(_shape_caption, world.SHAPES)), lambda it: _shape_caption(_shape(it)))
    shape_only = _outcomes(method, shapes)
    tick()
    shape_only_grey = _outcomes(method, [replace(it, images=(Grey(it.images[0]),)) for it in shapes])
    tick()
    image = encoder.embed_images([it.images[0].render(encoder.image_size) for it in held]).numpy()
    seen_image = encoder.embed_images([it.images[0].render(encoder.image_size) for it in seen]).numpy()
    tick()

    wrong = [(o.picked[0], it.right[0]) for o, it in zip(full, held) if not o.correct]
    keep_colour = sum(world.ALL_COMBOS[p][0] == world.ALL_COMBOS[t][0] for p, t in wrong)
    return {
        "n": len(held),
        "full": _percent(full),
        "errors": len(wrong),
        "errors_keep_colour": int(keep_colour),
        "among_heldout": _percent(among_heldout),
        "shape_only": _percent(shape_only),
        "shape_only_grey": _percent(shape_only_grey),
        "probe_shape": _probe(seen_image, _shape_of(seen), image, _shape_of(held)),
        "probe_colour": _probe(seen_image, _colour_of(seen), image, _colour_of(held)),
        "probe_n": len(seen),
    }
