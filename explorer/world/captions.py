"""Template captions: objects named in random order, relations only between two objects."""

from __future__ import annotations

from typing import Literal

import numpy as np

from explorer.world.scene import Scene, WorldObject

RELATIONS = ("to the left of", "to the right of", "above", "below")


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

