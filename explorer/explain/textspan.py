"""What a head reads: TextSpan (Gandelsman, Efros and Steinhardt, ICLR 2024, ``compute_complete_text_set.py``), a
greedy choice of texts from a pool whose directions span the head's direct parts over a set of images.

For one head: its parts over the images (N, D) are centred; the pool's unit text embeddings are projected onto the
span of the parts' top ``RANK`` right singular vectors; then, ``TEXTS`` times, the text whose projection of the parts
varies most is chosen, and its direction is taken out of the parts and of every text. Each chosen text is recorded
with the share of the head's variance it took out.

The pool is made from the world's vocabulary (its colours, shapes, sizes and relations) and the user's own texts; the
images are the world's validation pictures, one of every kind of swap. The images' parts are computed once per model
and TextSpan once per model and pool, both kept in one bounded cache of the project's kind (``core.cache``)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch

from explorer import world
from explorer.core.cache import LRUCache
from explorer.explain.head_shares import pixels_of, text_units
from explorer.explain.heads import decompose
from explorer.models.encoders import DualEncoder

RANK = 80  # the authors' default rank of the parts' span (--w_ov_rank)
TEXTS = 5  # texts per head shown (the authors' figures show 5 of --texts_per_head 10)
SPLIT, PER_KIND = "val-id", 6  # the images: 6 swap items of each kind on val-id, both pictures of each
_KEPT: LRUCache[object] = LRUCache(size=8)


@dataclass(frozen=True)
class HeadTexts:
    """TextSpan's texts for every head: ``texts[layer][head]`` the chosen texts in order, ``explained`` the share of
    the head's variance over the images each one took out; the pool and how many images it read."""

    texts: tuple[tuple[tuple[str, ...], ...], ...]
    explained: np.ndarray  # (layers, heads, TEXTS)
    pool: tuple[str, ...]
    images: int


def world_pool() -> tuple[str, ...]:
    """Texts from the world's vocabulary: each colour, shape and size alone, each colour-shape object, each
    relation."""
    colours = [f"{world.article(c)} {c} shape" for c in world.COLORS]
    shapes = [f"a {s}" for s in world.SHAPES]
    sizes = [f"a {s} shape" for s in world.SIZES]
    objects = [f"{world.article(c)} {c} {s}" for c in world.COLORS for s in world.SHAPES]
    relations = [f"a shape {r} another shape" for r in world.RELATIONS]
    return tuple(dict.fromkeys(colours + shapes + sizes + objects + relations))


def text_span(data: np.ndarray, texts: np.ndarray, iters: int = TEXTS,
              rank: int = RANK) -> tuple[list[int], list[float]]:
    """The indices of the ``iters`` texts chosen for ``data`` (N, D) among ``texts`` (T, D), and the share of the
    data's variance each took out."""
    _, _, vh = np.linalg.svd(data, full_matrices=False)
    span = vh[:rank]
    texts = texts @ span.T @ span  # the texts inside the span of the data's top directions
    data = data - data.mean(0, keepdims=True)
    total = float((data ** 2).sum()) or 1.0
    chosen, shares = [], []
    for _ in range(min(iters, len(texts))):
        spread = (data @ texts.T).std(0)
        top = int(spread.argmax())
        t = texts[top]
        norm = float(t @ t)
        if norm <= 1e-12:
            break
        before = float((data ** 2).sum())
        data = data - np.outer(data @ t / norm, t)
        texts = texts - np.outer(texts @ t / norm, t)
        chosen.append(top)
        shares.append((before - float((data ** 2).sum())) / total)
    return chosen, shares


def _images(size: int) -> list:
    return [p.render(size) for kind in world.KINDS for item in world.swap_items(SPLIT, kind, PER_KIND)
            for p in item.images]


def head_data(encoder: DualEncoder) -> np.ndarray:
    """(images, layers, heads, D) each head's parts over the images, kept once per model."""
    key = f"{encoder.key}:data"
    if key not in _KEPT:
        pictures, totals = _images(encoder.image_size), []
        for i in range(0, len(pictures), 16):  # not kept in the image states: the page's own pictures stay there
            totals += [p.head_totals for p in decompose(encoder.model, pixels_of(encoder, pictures[i:i + 16]))]
        _KEPT.put(key, torch.stack(totals).cpu().numpy())
    return _KEPT.get(key)  # type: ignore[return-value]


def head_texts(encoder: DualEncoder, extra: Sequence[str] = ()) -> HeadTexts:
    """TextSpan for every head of ``encoder``'s image tower over the world's pool and ``extra`` texts, kept."""
    pool = tuple(dict.fromkeys([*world_pool(), *(t.strip() for t in extra if t and t.strip())]))
    key = f"{encoder.key}:" + hashlib.sha1("\n".join(pool).encode()).hexdigest()
    if key not in _KEPT:
        data = head_data(encoder)
        units = text_units(encoder, pool).cpu().numpy().astype(np.float64)
        layers, heads = data.shape[1:3]
        texts, explained = [], np.zeros((layers, heads, TEXTS))
        for layer in range(layers):
            row = []
            for head in range(heads):
                chosen, shares = text_span(data[:, layer, head].astype(np.float64), units)
                row.append(tuple(pool[i] for i in chosen))
                explained[layer, head, :len(shares)] = shares
            texts.append(tuple(row))
        _KEPT.put(key, HeadTexts(tuple(texts), explained, pool, len(data)))
    return _KEPT.get(key)  # type: ignore[return-value]
