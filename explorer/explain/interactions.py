"""Second-order interactions of the cosine: how much each caption token and each image patch, together, add to the
score (exCLIP: Moeller et al., "Explaining caption-image interactions in CLIP models with second-order
attributions", TMLR 2025), for any open_clip model with transformer towers and a CLIP tokenizer.

As the authors' code computes it (``exclip.explanation.Explainer.explain``): the input of one block of each tower is
interpolated in ``steps`` straight steps between the input's (a = 1, 1 - 1/steps, ..., 1/steps) and a reference's
(a black image in the model's input space; a caption of its start token, token 0 and its end token); the Jacobian
of the unnormalised embedding by each interpolation is averaged (the integrated Jacobian ``J``); then the
interaction of text token t and image token p is

    A[t, p] = sum_k (sum_a dt[t, a] Jt[k, t, a]) (sum_b di[p, b] Ji[k, p, b]) / (|e_text| |e_image|)

with ``dt``, ``di`` the input's difference from the reference at that block. The authors form the full
(tokens x width) x (patches x width) matrix and sum it; here each side is contracted with its difference first, the
same sum in a different order, and the image's side is computed once for every caption.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch
import torch.autograd.forward_ad as fwad
from PIL import Image
from torch.nn.attention import SDPBackend, sdpa_kernel

from explorer.models.encoders import DualEncoder

STEPS = 10  # the authors' default number of interpolation steps
_FORWARD_MODE = threading.Lock()


@dataclass(frozen=True)
class Interactions:
    """One caption's interactions with one image: ``values`` (tokens, h, w) in cosine units, one row per token of
    the caption as the text tower reads it, from its start token to its end token; the caption's words are the
    content tokens ``positions`` (rows of ``values``), ``token_word`` the word each one belongs to."""

    caption: str
    cosine: float
    values: np.ndarray
    tokens: tuple[str, ...]  # the content tokens' text
    positions: tuple[int, ...]
    token_word: tuple[int, ...]
    words: tuple[str, ...]

    def words_map(self, words: Sequence[int]) -> np.ndarray:
        """(h, w) the interaction of the words numbered ``words`` (a word or a span) with each patch."""
        rows = [p for p, w in zip(self.positions, self.token_word) if w in set(words)]
        if not rows:
            raise ValueError(f"no token of words {list(words)} in {self.caption!r} (it has {len(self.words)} words)")
        return self.values[rows].sum(0)

    def span_map(self, chars: tuple[int, int]) -> np.ndarray:
        """(h, w) the interaction of the words inside the caption's characters ``chars`` with each patch."""
        return self.words_map(words_in(self.caption, chars))

    def word_values(self, cells: np.ndarray) -> np.ndarray:
        """(words,) each word's interaction with the patches weighted by ``cells`` (h, w): a region's share of each
        patch, 1 inside, 0 outside."""
        out = np.zeros(len(self.words))
        for p, w in zip(self.positions, self.token_word):
            out[w] += float((self.values[p] * cells).sum())
        return out


def words_in(caption: str, chars: tuple[int, int]) -> list[int]:
    """The indices of the caption's words (split on spaces) that lie inside ``chars``."""
    out, start = [], 0
    for i, word in enumerate(caption.split()):
        start = caption.index(word, start)
        if start >= chars[0] and start + len(word) <= chars[1]:
            out.append(i)
        start += len(word)
    return out


def _blocks(tower: torch.nn.Module) -> torch.nn.ModuleList:
    blocks = getattr(getattr(tower, "transformer", None), "resblocks", None)
    if blocks is None:
        raise ValueError(f"interactions need a transformer tower; {type(tower).__name__} has none")
    return blocks


def _text_tower(model: torch.nn.Module) -> torch.nn.Module:
    return model.text if hasattr(model, "text") else model


def applies(model: torch.nn.Module) -> bool:
    """Whether both towers are open_clip transformers (a ViT and a CLIP text tower)."""
    try:
        _blocks(model.visual), _blocks(_text_tower(model))
    except ValueError:
        return False
    return hasattr(_text_tower(model), "token_embedding")


def pools_first_token(tower: torch.nn.Module) -> bool:
    """Whether the tower's embedding is its last block's first (class) token, batch first, as open_clip's ViTs with
    ``pool_type="tok"`` read it: then the other tokens' outputs of that block reach no embedding."""
    return (getattr(tower, "pool_type", None) == "tok" and getattr(tower, "attn_pool", None) is None
            and getattr(tower.transformer, "batch_first", False) and hasattr(_blocks(tower)[-1], "ln_2"))


def fractions(steps: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """The interpolation's fractions of the way from the reference to the input: 1, 1 - 1/steps, ..., 1/steps (as
    the authors' ``torch.arange(1, 0, -1 / steps)``)."""
    return torch.arange(1, 0, -1 / steps, dtype=dtype)


class _Side:
    """One tower's contraction of its integrated Jacobian with the input's difference from the reference at a block:
    ``u`` (embedding dims, tokens), read by forward-mode differentiation, one tangent per token and interpolation."""

    def __init__(self, block: torch.nn.Module, steps: int, tokens: int | None = None, first_only: bool = False) -> None:
        self.block, self.steps, self.owner = block, steps, threading.get_ident()
        self.tokens = tokens or 0  # the tokens read (the first ones; all where None); a caption's up to its end token
        self.first_only = first_only  # only the first token's output of the block reaches the embedding

    def _first(self, module: torch.nn.Module, args: tuple) -> tuple | None:
        """The block's MLP on its first token only (the others' outputs reach no embedding): the same pooled output
        for a fraction of the work."""
        if threading.get_ident() != self.owner:
            return None
        return (args[0][:, :1], *args[1:])

    def _hook(self, module: torch.nn.Module, args: tuple) -> tuple | None:
        if threading.get_ident() != self.owner:  # another session's forward of the shared model passes untouched
            return None
        x, r = args[0][:1].detach(), args[0][-1:].detach()  # (1, S, D): the input's, the reference's
        steps, (_, length, width) = self.steps, x.shape
        self.tokens = self.tokens or length
        a = fractions(steps, x.dtype).to(x.device).view(-1, 1, 1)
        points = (r + a * (x - r))[:, None]  # (steps, 1, S, D)
        points = points.expand(steps, self.tokens, length, width).reshape(-1, length, width)
        eye = torch.eye(self.tokens, length, dtype=x.dtype, device=x.device)
        tangent = (eye[:, :, None] * (x - r)).expand(steps, -1, -1, -1).reshape(-1, length, width)
        # row (step n, token s): the n-th interpolation, its tangent the difference at token s only; then the
        # reference (no tangent)
        dual = fwad.make_dual(torch.cat([points, r]), torch.cat([tangent, torch.zeros_like(r)]))
        return (dual, *args[1:])

    def run(self, forward, inputs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(u, the input's embedding) from ``forward`` over ``inputs`` (the input, then the reference; or as many
        rows as the block's input will have, ``rows``): the block's input is replaced by the interpolations."""
        handles = [self.block.register_forward_pre_hook(self._hook)]
        if self.first_only:
            handles.append(self.block.ln_2.register_forward_pre_hook(self._first))
        try:  # forward-mode levels are one per process: one run at a time
            # the fused attention kernels have no forward mode: the math one
            # and nn.MultiheadAttention's fused fast path (open_clip's standard blocks at inference) has none either
            with _FORWARD_MODE, fwad.dual_level(), sdpa_kernel(SDPBackend.MATH):
                fast = torch.backends.mha.get_fastpath_enabled()
                torch.backends.mha.set_fastpath_enabled(False)
                try:
                    out = fwad.unpack_dual(forward(inputs))
                finally:
                    torch.backends.mha.set_fastpath_enabled(fast)
        finally:
            for handle in handles:
                handle.remove()
        emb, tangent = out.primal.float(), out.tangent.float()
        u = tangent[:-1].reshape(self.steps, self.tokens, -1).sum(0) / self.steps  # (S, E)
        return u.T.detach(), emb[0].detach()  # the first step is the input itself (a = 1)

    @property
    def rows(self) -> int:
        """How many rows the block's input becomes."""
        return self.steps * self.tokens + 1


def reference_ids(encoder: DualEncoder, ids: torch.Tensor) -> torch.Tensor:
    """The authors' text reference: the start token, token 0, the end token, then padding (0)."""
    tok = encoder.tokenizer
    sot, eot = getattr(tok, "sot_token_id", None), getattr(tok, "eot_token_id", None)
    if sot is None or eot is None:
        raise ValueError(f"interactions need a CLIP tokenizer (start and end tokens); {encoder.label} has none")
    ref = torch.zeros_like(ids[:1])
    ref[0, 0], ref[0, 2] = sot, eot
    return ref


@torch.no_grad()
def image_side(encoder: DualEncoder, image: Image.Image, layer: int = -1, steps: int = STEPS,
               model: torch.nn.Module | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """(u (E, image tokens), the image's embedding): the image's half of every caption's interactions."""
    model = model or encoder.model
    pixels = encoder.preprocess(image.convert("RGB")).to(encoder.device)[None]
    blocks = _blocks(model.visual)
    side = _Side(blocks[layer], steps, first_only=blocks[layer] is blocks[-1] and pools_first_token(model.visual))
    return side.run(model.encode_image, torch.cat([pixels, torch.zeros_like(pixels)]))


@torch.no_grad()
def text_side(encoder: DualEncoder, caption: str, layer: int = -1, steps: int = STEPS,
              model: torch.nn.Module | None = None) -> tuple[torch.Tensor, torch.Tensor, int]:
    """(u (E, text tokens up to the end token), the caption's embedding, the end token's position)."""
    model = model or encoder.model
    ids = encoder.tokenizer([caption]).to(encoder.device)
    end = int(ids[0].argmax())
    side = _Side(_blocks(_text_tower(model))[layer], steps, end + 1)  # the causal mask: no later token counts
    # the tower pools each row at its own end token: every interpolation row at the caption's, the last at the
    # reference's, as the authors' text forward does
    u, emb = side.run(model.encode_text, torch.cat([ids.repeat(side.rows - 1, 1), reference_ids(encoder, ids)]))
    return u, emb, end


def combine(image: tuple[torch.Tensor, torch.Tensor], text: tuple[torch.Tensor, torch.Tensor, int],
            grid: tuple[int, int]) -> tuple[np.ndarray, float]:
    """(tokens, h, w) interactions of the two sides, and the cosine; the image tokens before the patches (a class
    token) are left out."""
    (ui, ei), (ut, et, _) = image, text
    values = (ut.T @ ui) / (ei.norm() * et.norm())
    patches = grid[0] * grid[1]
    values = values[:, values.shape[1] - patches:].reshape(-1, *grid)
    return values.cpu().numpy(), float((ei @ et) / (ei.norm() * et.norm()))


def interactions(encoder: DualEncoder, image: Image.Image, captions: Sequence[str], layer: int = -1,
                 text_layer: int = -1, steps: int = STEPS, model: torch.nn.Module | None = None,
                 texts: Sequence[tuple] | None = None) -> list[Interactions]:
    """Each caption's token x patch interactions with ``image`` (the image's side computed once; the captions' sides
    ``texts``, ``text_side``'s for each caption at ``text_layer`` and ``steps``, computed here where not given, as
    for several pictures of the same captions)."""
    model = model or encoder.model
    if not applies(model):
        raise ValueError(f"interactions apply to transformer towers with a CLIP text tower; {encoder.label} has "
                         f"{type(model.visual).__name__}")
    side = image_side(encoder, image, layer, steps, model)
    texts = texts or [text_side(encoder, caption, text_layer, steps, model) for caption in captions]
    out = []
    for caption, text, feats in zip(captions, texts, encoder.encode_texts(list(captions), companions=False)):
        values, cosine = combine(side, text, encoder.grid)
        ids = encoder.tokenizer([caption])[0].tolist()
        positions, word_of, _ = encoder._alignment(caption, ids)
        out.append(Interactions(caption, cosine, values, feats.token_text, tuple(positions), tuple(word_of),
                                tuple(caption.split())))
    return out
