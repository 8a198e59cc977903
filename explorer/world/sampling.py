"""Random scenes and the training batches drawn from them."""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np

from explorer.world.captions import training_caption
from explorer.world.looks import jittered, random_look
from explorer.world.palette import ALL_COMBOS, FILLS, SIZES, Combo, Style, off_palette_paint
from explorer.world.scene import Scene, WorldObject

N_OBJECTS_P = (0.4, 0.3, 0.2, 0.1)  # how often scenes hold 1, 2, 3 or 4 objects


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
    """``combos`` in a fixed order and their probabilities (None: even), worked out once per pool (a training batch
    draws some 130 scenes from the same one)."""
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


def training_batch(
    rng: np.random.Generator,
    batch_size: int,
    combos: frozenset[Combo],
    partial: float = 0.0,
    grey: float = 0.0,
    unnamed: float = 0.0,
    benchmark_share: float | None = None,
    varied: float = 0.0,
) -> tuple[list[Scene], list[str]]:
    """A batch of scenes with captions, no caption repeated (repeats would be false negatives).

    With probability ``grey`` a scene is a black-and-white picture, with probability ``unnamed``
    its objects are painted in random colours outside the palette; either way its caption names
    shapes only. With probability ``varied`` a scene is drawn in a random look (``world.looks.random_look``: any
    background but the held-out ones, line drawings, smooth edges, noise, JPEG, other sizes, tilts, proportions) with
    its objects' paints jittered; its caption is the same as in the world's look. ``benchmark_share`` weighs the
    objects as ``random_scene`` says; since a repeated caption is drawn again, and single benchmark objects repeat
    most, their share of a batch ends a little lower.
    """
    scenes: list[Scene] = []
    captions: list[str] = []
    seen: set[str] = set()
    while len(scenes) < batch_size:
        style = _training_style(rng, grey, unnamed)
        scene = random_scene(rng, combos, style=style, benchmark_share=benchmark_share)
        if style == "unnamed":
            scene = replace(scene, paints=tuple(off_palette_paint(rng) for _ in scene.objects))
        if varied > 0 and rng.random() < varied:
            scene = varied_look(rng, scene)
        caption = training_caption(scene, rng, partial)
        if caption in seen:
            continue
        seen.add(caption)
        scenes.append(scene)
        captions.append(caption)
    return scenes, captions


def varied_look(rng: np.random.Generator, scene: Scene) -> Scene:
    """``scene`` with jittered paints and a random training look whose background is clear of them."""
    paints = jittered(rng, list(scene.paints) or [FILLS[o.color] for o in scene.objects])
    return replace(scene, paints=paints, look=random_look(rng, list(paints)))


def _training_style(rng: np.random.Generator, grey: float, unnamed: float) -> Style:
    if grey <= 0 and unnamed <= 0:
        return "plain"  # no draw: the stream stays the plain one
    r = rng.random()
    return "grey" if r < grey else "unnamed" if r < grey + unnamed else "plain"

