"""Swaps told apart on scenes no probe saw (the binding paper's test, cross-fitted over folds of held-out objects).

A swap pair is a 2 x 2 block of the colour x shape grid: side 0 holds {(c1, s1), (c2, s2)}, side 1 its swap
{(c1, s2), (c2, s1)}: the same colours and shapes, bound the other way (8 x 3 has 84 such pairs). A probe that
predicts a scene's embedding from its objects' concepts tells a pair apart when each side's prediction lies nearer
that side's embedding than the other side's.

The grid's objects are split into folds (``object_folds``); each pair is judged in one fold that holds one of its
objects out, by probes fitted on that fold's training scenes: those with no held-out object and neither side of a
pair judged in the fold. So every pair of the grid is judged once, by a probe that saw neither of its scenes (an
earlier version judged test scenes against partners the probe had been fitted on).

A pair can be seen several times (``swap_renders``: each time new places, the two sides drawn in the same places
with the colours swapped, and their captions naming the objects in one order), so a pair's verdict is the share of
its distinct renders told apart (``distinct_units``: captions name no places, so a pair's captions come in at most
two orders and its renders repeat them), and an interval resamples pairs, not renders.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

Obj = tuple[int, int]  # (colour index, shape index)
Pair = tuple[Obj, Obj]  # a two-object scene
MARGIN = 1e-6  # float noise in identical embeddings is no separation


@dataclass(frozen=True)
class SwapTable:
    """Embeddings (P, R, 2, D) of P swap pairs seen R times; ``rows`` (P, 2): the scene table's rows of both sides
    when the pairs are that table's own scenes (R = 1), else None."""

    pairs: list[tuple[Pair, Pair]]
    embeddings: np.ndarray
    rows: np.ndarray | None = None


def grid_swaps(n_colors: int, n_shapes: int) -> list[tuple[Pair, Pair]]:
    """Every swap pair of the grid, each side's objects in the scene table's order (colour first)."""
    return [(((c1, s1), (c2, s2)), ((c1, s2), (c2, s1)))
            for c1, c2 in itertools.combinations(range(n_colors), 2)
            for s1, s2 in itertools.combinations(range(n_shapes), 2)]


def table_swaps(pairs: list[Pair], embeddings: np.ndarray, n_colors: int, n_shapes: int) -> SwapTable:
    """The grid's swap pairs as the scene table's own scenes, each seen once."""
    index = {frozenset(p): i for i, p in enumerate(pairs)}
    swaps = grid_swaps(n_colors, n_shapes)
    rows = np.array([[index[frozenset(a)], index[frozenset(b)]] for a, b in swaps], dtype=int).reshape(-1, 2)
    return SwapTable(swaps, embeddings[rows][:, None], rows)


def object_folds(n_colors: int, n_shapes: int, k: int = 6, seed: int = 0) -> list[frozenset[Obj]]:
    """The grid's objects in ``k`` random folds, none holding every object of a colour or of a shape (so that each
    fold's training scenes show every colour and every shape)."""
    objs = [(c, s) for c in range(n_colors) for s in range(n_shapes)]
    rng = np.random.default_rng(seed)
    for _ in range(1000):
        folds = [frozenset(objs[i] for i in part) for part in np.array_split(rng.permutation(len(objs)), k)]
        if all(any(o not in f for o in objs if o[0] == c) for f in folds for c in range(n_colors)) and \
                all(any(o not in f for o in objs if o[1] == s) for f in folds for s in range(n_shapes)):
            return folds
    raise ValueError(f"no {k} folds of a {n_colors} x {n_shapes} grid leave every colour and shape seen")


def fold_plan(pairs: list[Pair], swaps: list[tuple[Pair, Pair]], folds: list[frozenset[Obj]],
              seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """For each fold, (its training rows of the scene table, the swap pairs it judges).

    A pair is judged in one fold (chosen at random) among those holding one of its four objects; a fold trains on
    the scenes with none of its objects, less both sides of every pair it judges.
    """
    rng = np.random.default_rng(seed)
    judged: list[list[int]] = [[] for _ in folds]
    for p, (a, b) in enumerate(swaps):
        holding = [k for k, fold in enumerate(folds) if fold & (set(a) | set(b))]
        judged[int(rng.choice(holding))].append(p)
    plan = []
    for fold, mine in zip(folds, judged):
        unseen = {frozenset(side) for p in mine for side in swaps[p]}
        train = [i for i, scene in enumerate(pairs) if not fold & set(scene) and frozenset(scene) not in unseen]
        plan.append((np.array(train, dtype=int), np.array(mine, dtype=int)))
    return plan


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def told_apart_renders(predicted: np.ndarray, embeddings: np.ndarray) -> np.ndarray:
    """Whether each render is told apart (..., P, R): ``predicted`` (..., P, 2, D), one prediction a side, against
    ``embeddings`` (..., P, R, 2, D); both sides must lie nearer their own prediction than the other side does."""
    p, e = _unit(predicted)[..., None, :, :], _unit(embeddings)
    own = (p * e).sum(-1)
    other = (p * e[..., ::-1, :]).sum(-1)
    return (own > other + MARGIN).all(-1)


def told_apart(predicted: np.ndarray, embeddings: np.ndarray) -> np.ndarray:
    """Share of each pair's renders told apart (..., P) (``told_apart_renders``)."""
    return told_apart_renders(predicted, embeddings).mean(-1)


def distinct_units(embeddings: np.ndarray, tol: float = 1e-6) -> np.ndarray:
    """(P, R) bool: the renders that count as independent units, each pair's first render of every distinct one (a
    render whose two sides embed as an earlier render's of the same pair, as a caption naming the same objects in
    the same order does, is the same draw, not a new one). ``embeddings``: (P, R, 2, D)."""
    flat = embeddings.reshape(embeddings.shape[0], embeddings.shape[1], -1)
    gaps = np.abs(flat[:, :, None] - flat[:, None]).max(-1)  # (P, R, R)
    earlier = np.tril(np.ones(gaps.shape[1:], dtype=bool), -1)
    return ~((gaps <= tol) & earlier).any(-1)


def swap_cosine(embeddings: np.ndarray) -> float:
    """How alike the two sides of each swap are, on average over pairs and renders (1: the same embedding)."""
    e = _unit(embeddings)
    return float((e[..., 0, :] * e[..., 1, :]).sum(-1).mean())


def swap_scenes(n_colors: int = 8, n_shapes: int = 3, renders: int = 3, seed: int = 1) -> tuple[list, list[str]]:
    """The grid's swap pairs, each drawn ``renders`` times (new places; the two sides in the same places with the
    colours swapped, each object over the same pixels, ``equal_area``) with a caption for each side naming its objects
    in one order for both sides: the objects of every side (pairs x renders x 2) and their captions, in that order."""
    from dataclasses import replace

    from explorer import world
    from explorer.readings.equal_area import placed

    colors, shapes = list(world.COLORS)[:n_colors], list(world.SHAPES)[:n_shapes]
    rng = np.random.default_rng(seed)
    sides, captions = [], []
    for (a, b), _ in grid_swaps(n_colors, n_shapes):
        for _ in range(renders):
            objs = placed(rng, [(colors[c], shapes[s]) for c, s in (a, b)])
            swapped = [replace(objs[0], color=objs[1].color), replace(objs[1], color=objs[0].color)]
            order = rng.permutation(2)
            for side in (objs, swapped):  # the shapes keep their places and pixels, the colours swap
                sides.append(side)
                captions.append(world.list_caption([side[i] for i in order]))
    return sides, captions


def swap_renders(encoder, n_colors: int = 8, n_shapes: int = 3, renders: int = 3, seed: int = 1
                 ) -> dict[str, SwapTable]:
    """Image and caption embeddings of the grid's swap pairs, each drawn ``renders`` times (``swap_scenes``: new
    scenes, the scene table's renders are not among them), so that the two sides hold the same share of each
    colour."""
    from explorer.readings.equal_area import picture

    sides, captions = swap_scenes(n_colors, n_shapes, renders, seed)
    swaps = grid_swaps(n_colors, n_shapes)
    shape = (len(swaps), renders, 2, -1)
    found = {"image": encoder.embed_images([picture(side, encoder.image_size) for side in sides]).numpy(),
             "text": encoder.embed_texts(captions).numpy()}
    return {kind: SwapTable(swaps, emb.reshape(shape)) for kind, emb in found.items()}
