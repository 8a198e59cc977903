"""A ViT image tower's attention as probabilities: hooks on open_clip's own attention modules that compute each one's
output again from its input and weights with the softmax written out, so that the probabilities, queries, keys,
values and the mixed values before the output projection are tensors in the graph (a gradient can be taken by them).

Both of open_clip's attention modules are read: ``nn.MultiheadAttention`` (its default blocks, e.g. ViT-B-32) and its
own ``Attention`` (``block_type: custom``, the embedded world-clip). The output the hook returns equals the module's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from open_clip.transformer import Attention, VisionTransformer

from explorer.explain.base import Explainer, only_this_thread


@dataclass(frozen=True)
class AttentionRecord:
    """One block's attention in one forward: (batch, heads, tokens, tokens) probabilities, (batch, heads, tokens,
    head_dim) queries, keys and values, and (batch, tokens, width) mixed values before the output projection."""

    probs: torch.Tensor
    q: torch.Tensor
    k: torch.Tensor
    v: torch.Tensor
    mixed: torch.Tensor


def is_class_token_vit(model: torch.nn.Module) -> bool:
    """An open_clip ViT image tower that reads its class token (the first of its tokens) and whose blocks' attention
    this module can write out."""
    visual = getattr(model, "visual", None)
    if not isinstance(visual, VisionTransformer) or visual.attn_pool is not None or visual.pool_type != "tok":
        return False
    return all(_readable(block.attn) for block in visual.transformer.resblocks)


def _readable(attn: torch.nn.Module) -> bool:
    if isinstance(attn, torch.nn.MultiheadAttention):
        return attn._qkv_same_embed_dim and attn.bias_k is None and not attn.add_zero_attn
    return isinstance(attn, Attention) and attn.logit_scale is None


def _heads(x: torch.Tensor, heads: int) -> torch.Tensor:
    n, length, width = x.shape
    return x.reshape(n, length, heads, width // heads).transpose(1, 2)


def explicit_attention(attn: torch.nn.Module, x: torch.Tensor,
                       mask: torch.Tensor | None = None) -> tuple[torch.Tensor, AttentionRecord]:
    """The module's self-attention output for (batch, tokens, width) ``x``, and its record."""
    heads = attn.num_heads
    q, k, v = (_heads(t, heads) for t in F.linear(x, attn.in_proj_weight, attn.in_proj_bias).chunk(3, dim=-1))
    if isinstance(attn, Attention):
        q, k = attn.ln_q(q), attn.ln_k(k)
    logits = (q * q.shape[-1] ** -0.5) @ k.transpose(-1, -2)
    if mask is not None:
        logits = logits + (torch.zeros_like(mask, dtype=logits.dtype).masked_fill(mask, float("-inf"))
                           if mask.dtype == torch.bool else mask.to(logits.dtype))
    probs = logits.softmax(dim=-1)
    mixed = probs @ v
    if getattr(attn, "head_scale", None) is not None:
        mixed = mixed * attn.head_scale
    mixed = mixed.transpose(1, 2).reshape(x.shape)
    out = attn.out_proj(attn.ln_inner(mixed) if isinstance(attn, Attention) else mixed)
    return out, AttentionRecord(probs, q, k, v, mixed)


def attention_hooks(model: torch.nn.Module, record: list[Any]) -> list[torch.utils.hooks.RemovableHandle]:
    """Hooks on every block of ``model``'s image tower that append its ``AttentionRecord`` to ``record``, bottom up."""
    handles = []
    for block in model.visual.transformer.resblocks:
        handles.append(block.attn.register_forward_hook(only_this_thread(_recorder(record)), with_kwargs=True))
    return handles


def _recorder(record: list[Any]):
    def hook(attn: torch.nn.Module, args: tuple, kwargs: dict, output: Any) -> Any:
        x = args[0] if args else kwargs.get("x", kwargs.get("query"))
        mask = kwargs.get("attn_mask")
        if isinstance(attn, torch.nn.MultiheadAttention):
            batch_first = attn.batch_first
            out, found = explicit_attention(attn, x if batch_first else x.transpose(0, 1), mask)
            record.append(found)
            return (out if batch_first else out.transpose(0, 1), None)
        out, found = explicit_attention(attn, x, mask)
        record.append(found)
        return out

    return hook


class AttentionExplainer(Explainer):
    """An explainer of a class-token ViT that reads its blocks' ``AttentionRecord``s (bottom up)."""

    @staticmethod
    def applies(model: torch.nn.Module) -> bool:
        return is_class_token_vit(model)

    def hooks(self, record: list[Any]) -> list[torch.utils.hooks.RemovableHandle]:
        return attention_hooks(self.model, record)
