"""Which object each attribute-noun span binds to, read from the interactions (``explain/interactions.py``) on the
world's swap items, judged by the objects' masks (``python -m explorer interactions``).

For each span of a caption that names a colour and a shape ("red square"), its interaction map (the sum of its
tokens' rows) is read on each object as the mean over the object's pixels (a density, so that a larger shape does
not win by its size):
- a span naming an object the picture holds (the true caption's): does the named object carry more of the span's
  interaction than the picture's other objects ("right object", chance 50%);
- a span naming a pair absent from the picture (the swapped caption's "blue square" on a red square and a blue
  circle): does the object of its colour or the object of its shape carry more ("colour wins", the model's failure
  mode when above 50%).

Each figure is a percentage of spans: the mean over items of each item's share, with a 95% interval resampling the
items (``explorer.core.intervals``), for the model and for a model with no binding (the same architecture with
random weights), whose spans land on one object or the other by the pixels alone, at chance.

A span naming an object can land on it by grounding alone: its colour word finds the colour, its shape word the
shape, with no binding of the two. So each such span's words are also read alone (``WORDS``: the colour word's map,
the shape word's map, judged as the span's), and the span's gain over each word (per item, span share minus word
share, with its interval) is what binding adds; it reads "binding" only where both gains' intervals clear zero.
Each item's shares are kept (``per_item``), for the model and its null alike, and ``paired`` gives the model minus
the null item by item. Size and relation swaps are read on their colour-shape spans only: no span carrying a size or
a relation is scored.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Callable, Sequence

import numpy as np
import torch
import torch.nn.functional as F
from tqdm import tqdm

from explorer import world
from explorer.core import intervals
from explorer.explain.interactions import STEPS, Interactions, interactions, text_side
from explorer.explain.pointing import cases
from explorer.images.regions import visible_box
from explorer.models.encoders import DualEncoder

log = logging.getLogger(__name__)

CHANCE = 50.0
FIGURES = ("right_object", "colour_wins")
WORDS = ("colour_word", "shape_word")  # a named object's colour word, or its shape word, read alone: grounding


def patch_cells(mask: np.ndarray, grid: tuple[int, int], box: tuple[int, int, int, int]) -> np.ndarray:
    """(h, w) the share of each patch that ``mask`` (H, W) covers, over the part of the image the model sees."""
    x0, y0, x1, y1 = box
    part = torch.from_numpy(mask[y0:y1, x0:x1].astype(np.float32))[None, None]
    return F.adaptive_avg_pool2d(part, grid)[0, 0].numpy()


def density(span: np.ndarray, cells: np.ndarray) -> float:
    """The span's interaction per unit of the object's area (``cells``: its share of each patch)."""
    area = float(cells.sum())
    return float((span * cells).sum()) / area if area > 0 else float("nan")


def word_chars(caption: str, chars: tuple[int, int]) -> tuple[tuple[int, int], tuple[int, int]]:
    """The characters of the colour word and of the shape word inside the span ``chars`` of ``caption``."""
    start, found = chars[0], {}
    for match in re.finditer(r"\w+", caption[chars[0]:chars[1]]):
        for name, vocabulary in zip(WORDS, (world.COLORS, world.SHAPES)):
            if match[0] in vocabulary and name not in found:
                found[name] = (start + match.start(), start + match.end())
    return found[WORDS[0]], found[WORDS[1]]


def judge(found: Interactions, picture: Any, size: int, grid: tuple[int, int], box) -> dict[str, list[float]]:
    """One caption on one picture: each span's verdict (1 or 0) under ``right_object`` or ``colour_wins``, and for a
    span naming an object, each of its words' read alone (``WORDS``)."""
    masks = picture.masks(size)
    out: dict[str, list[float]] = {}
    for case in cases(picture, found.caption, size):
        span = found.span_map(case.chars)
        if case.named is not None:
            mine, theirs = patch_cells(case.named, grid, box), patch_cells(masks.any(0) & ~case.named, grid, box)
            for name, part in zip(("right_object", *WORDS), (span, *(found.span_map(c) for c in
                                                                     word_chars(found.caption, case.chars)))):
                out.setdefault(name, []).append(float(density(part, mine) > density(part, theirs)))
        else:
            colour = density(span, patch_cells(case.colour, grid, box))
            shape = density(span, patch_cells(case.shape, grid, box))
            out.setdefault("colour_wins", []).append(float(colour > shape))
    return out


def item_verdicts(encoder: DualEncoder, item: Any, steps: int = STEPS) -> dict[str, list[float]]:
    """Every span's verdict over an item's pictures, each with both captions."""
    size, found = encoder.image_size, {}
    texts = [text_side(encoder, caption, steps=steps) for caption in item.captions]  # the same for every picture
    for picture in item.images:
        image = picture.render(size)
        box = visible_box(image.width, image.height, encoder.preprocess)
        for inter in interactions(encoder, image, item.captions, steps=steps, texts=texts):
            for name, values in judge(inter, picture, size, encoder.grid, box).items():
                found.setdefault(name, []).extend(values)
    return found


def _shares(items: Sequence[dict[str, list[float]]], name: str) -> list[float | None]:
    """Each item's share of spans under ``name`` (None for an item with no such span)."""
    return [float(np.mean(it[name])) if it.get(name) else None for it in items]


def paired(a: Sequence[float | None], b: Sequence[float | None]) -> dict | None:
    """The mean of ``a`` minus ``b`` over the items both have, in points, with its interval (items resampled)."""
    diffs = np.array([x - y for x, y in zip(a, b) if x is not None and y is not None])
    if not len(diffs):
        return None
    return {"points": round(100 * float(diffs.mean()), 2), "ci": intervals.percent_intervals(diffs)[0],
            "items": len(diffs)}


def summary(items: Sequence[dict[str, list[float]]]) -> dict[str, dict]:
    """Per figure (``FIGURES`` and ``WORDS``): the percentage (mean over items of each item's share), its interval,
    items, spans, reading and each item's share; and the span's gain over each of its words read alone."""
    out = {}
    for name in (*FIGURES, *WORDS):
        shares = _shares(items, name)
        rows = [x for x in shares if x is not None]
        if not rows:
            continue
        ci = intervals.percent_intervals(np.array(rows))[0]
        out[name] = {"percent": round(100 * float(np.mean(rows)), 2), "ci": ci, "items": len(rows),
                     "spans": sum(len(it[name]) for it in items if it.get(name)),
                     "reading": intervals.against(ci, CHANCE), "per_item": shares}
    if all(name in out for name in ("right_object", *WORDS)):
        gains = {f"over_{name}": paired(out["right_object"]["per_item"], out[name]["per_item"]) for name in WORDS}
        binds = all(g["ci"][0] > 0 for g in gains.values())
        out["span_gain"] = gains | {"reading": "binding" if binds else "grounding alone: no gain over both words"}
    return out


def no_binding_model(encoder: DualEncoder, seed: int = 0) -> DualEncoder:
    """The model's architecture with random weights (seeded): a model that binds nothing."""
    torch.manual_seed(seed)
    return DualEncoder(name=encoder.name, device=encoder.device)


def binding_report(encoder: DualEncoder, splits: Sequence[str], kinds: Sequence[str], limit: int,
                   null: DualEncoder | None = None, steps: int = STEPS, command: str = "",
                   write: Callable[[dict], None] | None = None) -> dict:
    """The reading per split and kind for ``encoder`` and the no-binding ``null`` (random weights by default); the
    report so far is handed to ``write`` after each split and kind, so that a long run keeps what it did."""
    null = null or no_binding_model(encoder)
    unknown = sorted(set(kinds) - set(world.KINDS))
    if unknown:
        raise ValueError(f"unknown kinds {unknown}; known: {', '.join(world.KINDS)}")
    results: dict[str, dict] = {}
    report = {"benchmark": "world", "model": encoder.label, "null": f"{null.label} (no binding)", "command": command,
            "splits": list(splits), "kinds": list(kinds), "limit": limit, "steps": steps,
            "layers": {"image": "last block's input", "text": "last block's input"}, "chance": CHANCE,
            "figures": {"right_object": "spans naming an object the picture holds (the true caption's; in size and "
                                        "relation swaps both captions'): the named object carries more interaction "
                                        "per pixel than the other object",
                        "colour_wins": "swapped caption: spans whose colour's object carries more interaction per "
                                       "pixel than their shape's object"},
            "words": "spans naming an object the picture holds, each word read alone (colour_word, shape_word): what "
                     "grounding gives without binding; span_gain: the span's share minus the word's, item by item",
            "spans": "colour-shape spans only, in every kind: no span carrying a size or a relation is scored",
            "paired": "the model minus its null, item by item, per figure",
            "interval": {**intervals.METHOD, "unit": "items (each the share of its spans)"}, "results": results}
    for split in splits:
        for kind in kinds:
            items = world.swap_items(split, kind, limit)
            for role, model in (("model", encoder), ("null", null)):
                found = [item_verdicts(model, it, steps) for it in tqdm(items, desc=f"{role} {split}/{kind}")]
                results.setdefault(role, {}).setdefault(split, {})[kind] = summary(found)
            mine, theirs = results["model"][split][kind], results["null"][split][kind]
            results.setdefault("paired", {}).setdefault(split, {})[kind] = {
                name: paired(mine[name]["per_item"], theirs[name]["per_item"])
                for name in (*FIGURES, *WORDS) if name in mine and name in theirs}
            if write:
                write(report)
    return report
