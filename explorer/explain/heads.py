"""The image embedding split into each layer's and head's direct part, per patch (Gandelsman, Efros and Steinhardt,
"Interpreting CLIP's Image Representation via Text-Based Decomposition", ICLR 2024: the projected residual stream).

A ViT that pools its class token reads the residual stream at that token, which is a sum: the class embedding and
positional term after ``ln_pre`` (the stem), each block's attention output and each block's MLP output. A block's
attention output at the class token is itself a sum over heads and over the tokens each head reads,
``probs[h, 0, t] * v[h, t] @ W_o[:, h]`` (times the block's layer scale), plus the output projection's bias. The
final LayerNorm is split as the authors split it (``prs_hook.PRSLogger``): the mean and the standard deviation are the
full residual's, and each of the 2 L + 1 streams (the stem, L attentions, L MLPs) takes an equal share of the mean
and of the LayerNorm's bias, a block's attention share split evenly over its heads and tokens (the bias of the output
projection too). Every part then goes through ``ln_post``'s scale and ``proj``; the parts sum to the embedding before
normalisation. One forward pass, no backward: hooks on open_clip's own modules read it.

It applies to open_clip's ``VisionTransformer`` pooling its class token, with either attention module (ViT-B-32's
``nn.MultiheadAttention``, the embedded world-clip's ``Attention``) and no LayerNorm inside the attention. SigLIP's
towers are not split: their attention pool is followed by a LayerNorm and an MLP, which are not linear, so the parts
of the residual stream do not add up to the embedding there.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from open_clip.transformer import Attention
from torch import nn

from explorer.explain.attention import is_class_token_vit


@dataclass(frozen=True)
class HeadParts:
    """One image's embedding (D,) before normalisation and its parts: ``heads`` (layers, heads, tokens, D) each head's
    direct part through each token it reads (token 0 the class token, then the patches row by row), ``mlps``
    (layers, D) each block's MLP, ``stem`` (D,) the class embedding and positional term; ``grid`` the patch grid."""

    embedding: torch.Tensor
    heads: torch.Tensor
    mlps: torch.Tensor
    stem: torch.Tensor
    grid: tuple[int, int]

    @property
    def parts(self) -> torch.Tensor:
        """(1 + layers + layers * heads * tokens, D) every part, summing to ``embedding``: the stem, the MLPs, then
        each head's per token, layer by layer."""
        return torch.cat([self.stem[None], self.mlps, self.heads.reshape(-1, self.heads.shape[-1])])

    @property
    def head_totals(self) -> torch.Tensor:
        """(layers, heads, D) each head's direct part, its tokens summed."""
        return self.heads.sum(2)


def applies(model: nn.Module) -> bool:
    """Whether ``model``'s image tower is an open_clip ViT this split reads exactly (see the module's note)."""
    if not is_class_token_vit(model):
        return False
    blocks = model.visual.transformer.resblocks
    return all(isinstance(getattr(b, "ln_attn", nn.Identity()), nn.Identity)
               and isinstance(getattr(b.attn, "ln_inner", nn.Identity()), nn.Identity) for b in blocks)


def why_not(model: nn.Module) -> str:
    """One sentence on why a tower is not split (empty where it is)."""
    if applies(model):
        return ""
    name = type(getattr(model, "visual", model)).__name__
    return (f"The head split reads open_clip ViTs that pool their class token; this model's image tower ({name}) is "
            f"not one (a tower ending in an attention pool, as SigLIP's, passes its tokens through a LayerNorm and an "
            f"MLP after the pool, which no sum of parts passes).")


def class_token_mix(attn: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """(batch, heads, tokens, head_dim) what each head takes from each token into the class token's output: its
    attention probability times the token's value (and the head's scale), before the output projection. Only the class
    token's query is formed."""
    heads = attn.num_heads
    n, length, width = x.shape
    bias = attn.in_proj_bias.float() if attn.in_proj_bias is not None else None
    q, k, v = (t.reshape(n, length, heads, -1).transpose(1, 2)
               for t in F.linear(x, attn.in_proj_weight.float(), bias).chunk(3, dim=-1))
    q = q[:, :, :1]
    if isinstance(attn, Attention):
        q, k = attn.ln_q(q), attn.ln_k(k)
    probs = ((q * q.shape[-1] ** -0.5) @ k.transpose(-1, -2)).softmax(dim=-1)  # (batch, heads, 1, tokens)
    mixed = probs[:, :, 0, :, None] * v
    if getattr(attn, "head_scale", None) is not None:
        mixed = mixed * attn.head_scale[None].float()
    return mixed


class _Record:
    """What the hooks read during one forward: the stem, each block's per-head parts and MLP at the class token, and
    the residual entering ``ln_post``."""

    def __init__(self, visual: nn.Module) -> None:
        self.visual, self.owner = visual, threading.get_ident()
        self.first = not visual.transformer.batch_first  # blocks see (tokens, batch, width)
        self.stem: torch.Tensor | None = None
        self.heads: list[torch.Tensor] = []
        self.mlps: list[torch.Tensor] = []
        self.residual: torch.Tensor | None = None

    def _mine(self) -> bool:
        return threading.get_ident() == self.owner

    def hooks(self) -> list[torch.utils.hooks.RemovableHandle]:
        visual, handles = self.visual, []
        handles.append(visual.ln_pre.register_forward_hook(self._stem))
        for block in visual.transformer.resblocks:
            handles.append(block.attn.register_forward_hook(self._attention(block), with_kwargs=True))
            handles.append(block.mlp.register_forward_hook(self._mlp(block)))
        handles.append(visual.ln_post.register_forward_pre_hook(self._post))
        return handles

    def _stem(self, module: nn.Module, args: tuple, out: torch.Tensor) -> None:
        if self._mine():
            self.stem = out[:, 0].float()  # ln_pre runs before the blocks' layout: batch first

    def _attention(self, block: nn.Module):
        def hook(attn: nn.Module, args: tuple, kwargs: dict, output: Any) -> None:
            if not self._mine():
                return
            x = args[0] if args else kwargs.get("x", kwargs.get("query"))
            x = x.transpose(0, 1) if self.first else x
            mixed = class_token_mix(attn, x.float())
            heads, tokens = mixed.shape[1], mixed.shape[2]
            w_o = attn.out_proj.weight.float().reshape(-1, heads, mixed.shape[-1])  # (width, heads, head_dim)
            parts = torch.einsum("bhtc,dhc->bhtd", mixed, w_o)
            if attn.out_proj.bias is not None:
                parts = parts + attn.out_proj.bias.float() / (heads * tokens)
            self.heads.append(block.ls_1(parts))

        return hook

    def _mlp(self, block: nn.Module):
        def hook(module: nn.Module, args: tuple, out: torch.Tensor) -> None:
            if self._mine():
                self.mlps.append(block.ls_2((out[0] if self.first else out[:, 0]).float()))

        return hook

    def _post(self, module: nn.Module, args: tuple) -> None:
        if self._mine():
            x = args[0]
            self.residual = (x[:, 0] if x.ndim == 3 else x).float()


def project(record: _Record, visual: nn.Module) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The recorded parts through ``ln_post`` (the full residual's mean and deviation, each stream's equal share of
    the mean and bias) and ``proj``: (batch, layers, heads, tokens, D), (batch, layers, D), (batch, D)."""
    ln, r = visual.ln_post, record.residual
    mean = r.mean(-1, keepdim=True)
    std = torch.sqrt(r.var(-1, unbiased=False, keepdim=True) + ln.eps)
    heads, mlps = torch.stack(record.heads, 1), torch.stack(record.mlps, 1)  # (b, l, h, t, w), (b, l, w)
    streams = 2 * heads.shape[1] + 1
    weight = ln.weight.float() if ln.weight is not None else 1.0
    bias = ln.bias.float() if ln.bias is not None else torch.zeros_like(r[0])
    proj = visual.proj.float() if visual.proj is not None else None

    def through(part: torch.Tensor, share: int, shape: tuple) -> torch.Tensor:
        scaled = (part - mean.view(*shape) / share) * weight / std.view(*shape) + bias / share
        return scaled @ proj if proj is not None else scaled

    pieces = heads.shape[2] * heads.shape[3]
    return (through(heads, streams * pieces, (-1, 1, 1, 1, 1)), through(mlps, streams, (-1, 1, 1)),
            through(record.stem, streams, (-1, 1)))


@torch.no_grad()
def decompose(model: nn.Module, pixels: torch.Tensor) -> list[HeadParts]:
    """Each image's ``HeadParts`` from one forward of ``model``'s image tower over ``pixels`` (N, 3, S, S)."""
    if not applies(model):
        raise ValueError(why_not(model))
    visual = model.visual
    record = _Record(visual)
    handles = record.hooks()
    try:
        embedding = model.encode_image(pixels).float()
    finally:
        for handle in handles:
            handle.remove()
    heads, mlps, stem = project(record, visual)
    grid = tuple(visual.grid_size)
    return [HeadParts(e, h, m, s, grid) for e, h, m, s in zip(embedding, heads, mlps, stem)]  # type: ignore[arg-type]
