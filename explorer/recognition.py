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
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from sklearn.linear_model import LogisticRegression

from explorer import world

STAGES = 4  # how often ``readings`` calls its ``tick``


def _top1(scores: np.ndarray, candidates: list[int], labels: np.ndarray) -> float:
    """Percent of rows whose best-scoring candidate column is the label."""
    picked = np.array(candidates)[scores[:, candidates].argmax(1)]
    return float((picked == labels).mean() * 100)


def _probe(train_x: np.ndarray, train_y: np.ndarray, test_x: np.ndarray, test_y: np.ndarray) -> float:
    clf = LogisticRegression(max_iter=3000, C=10.0).fit(train_x, train_y)
    return float(clf.score(test_x, test_y) * 100)


def _shape_of(items) -> np.ndarray:
    return np.array([world.SHAPES.index(i.image.objects[0].shape) for i in items])


def _colour_of(items) -> np.ndarray:
    return np.array([list(world.COLORS).index(i.image.objects[0].color) for i in items])


def readings(encoder, limit: int = 500, probe_limit: int = 600, tick: Callable[[], object] = lambda: None,
             prefix: str = "") -> dict:
    """The held-out readings of ``encoder`` (see the module docstring), with ``limit`` held-out images.

    ``prefix``: "" reads the test splits (to report), ``world.VAL_PREFIX`` the validation ones (to choose).
    """
    held = world.single_items(prefix + "heldout", limit)
    seen = world.single_items(prefix + "id", probe_limit)
    pictures = [item.image.render(encoder.image_size) for item in held]
    image = encoder.embed_images(pictures).numpy()  # L2-normalized, as the texts are
    tick()
    grey = encoder.embed_images([p.convert("L").convert("RGB") for p in pictures]).numpy()
    tick()
    seen_image = encoder.embed_images([item.image.render(encoder.image_size) for item in seen]).numpy()
    tick()
    full = image @ encoder.embed_texts(world.single_captions()).numpy().T
    shapes = encoder.embed_texts([f"{world.article(s)} {s}" for s in world.SHAPES]).numpy().T
    tick()

    labels = np.array([item.right for item in held])
    picked = full.argmax(1)
    wrong = picked != labels
    keep_colour = sum(world.ALL_COMBOS[p][0] == world.ALL_COMBOS[t][0] for p, t in zip(picked[wrong], labels[wrong]))
    heldout_ids = [i for i, c in enumerate(world.ALL_COMBOS) if c in world.heldout_combos()]
    return {
        "n": len(held),
        "full": _top1(full, list(range(len(world.ALL_COMBOS))), labels),
        "errors": int(wrong.sum()),
        "errors_keep_colour": int(keep_colour),
        "among_heldout": _top1(full, heldout_ids, labels),
        "shape_only": float(((image @ shapes).argmax(1) == _shape_of(held)).mean() * 100),
        "shape_only_grey": float(((grey @ shapes).argmax(1) == _shape_of(held)).mean() * 100),
        "probe_shape": _probe(seen_image, _shape_of(seen), image, _shape_of(held)),
        "probe_colour": _probe(seen_image, _colour_of(seen), image, _colour_of(held)),
        "probe_n": len(seen),
    }

