"""LeGrad's variant for an image tower that pools its patches with an attention pool: SigLIP's MAP head (timm's
``AttentionPoolLatent``, on an open_clip ``TimmModel``), as the authors' ``compute_legrad_siglip`` computes it.

For each block read, its output tokens, as they leave the block (the authors' code does not apply the trunk's final
norm, which the model's own forward does before its pool; neither does this), go through the tower's own attention
pool, whose learned probe is the query and the patches the keys (there is no class token), and the modules after it
(identities in SigLIP): z_l, normalised; s_l = <text feature, z_l>. The block's map is the gradient of s_l by the
pool's attention probabilities, clamped at 0, averaged over heads, the probe's row (the first latent); the maps are
summed over the blocks. The authors' correction (their default) follows: the same sum for the neutral prompt
``NEUTRAL_PROMPT``, min-max normalised, marks the patches the pool reads whatever the text; where it passes
``NEUTRAL_THRESHOLD`` the text's sum is set to 0. ``explorer.explain.legrad`` min-max normalises the result per text.
"""

from __future__ import annotations

from typing import Sequence

import torch
import torch.nn.functional as F
from open_clip.timm_model import TimmModel
from timm.layers import AttentionPoolLatent

NEUTRAL_PROMPT = "a photo of a"  # the authors' "empty" prompt
NEUTRAL_THRESHOLD = 0.8  # the authors' ``correction_threshold``


def is_attention_pool_vit(model: torch.nn.Module) -> bool:
    """An open_clip timm ViT that pools its patches (and no class or register token) with an attention pool."""
    visual = getattr(model, "visual", None)
    trunk = getattr(visual, "trunk", None)
    return (isinstance(visual, TimmModel) and isinstance(getattr(trunk, "attn_pool", None), AttentionPoolLatent)
            and hasattr(trunk, "blocks") and getattr(trunk, "num_prefix_tokens", None) == 0)


def pool_with_probs(pool: AttentionPoolLatent, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The pool's output for (batch, tokens, width) ``x``, its softmax written out, and its (batch, heads, latents,
    tokens) attention probabilities."""
    n, length, _ = x.shape
    if pool.pos_embed is not None:
        x = x + pool.pos_embed.unsqueeze(0).to(x.dtype)
    q = pool.q(pool.latent.expand(n, -1, -1)).reshape(n, pool.latent_len, pool.num_heads, pool.head_dim)
    k, v = pool.kv(x).reshape(n, length, 2, pool.num_heads, pool.head_dim).permute(2, 0, 3, 1, 4).unbind(0)
    q, k = pool.q_norm(q.transpose(1, 2)), pool.k_norm(k)
    probs = ((q * pool.scale) @ k.transpose(-2, -1)).softmax(dim=-1)
    out = pool.proj_drop(pool.proj((probs @ v).transpose(1, 2).reshape(n, pool.latent_len, -1)))
    if pool.mlp is not None:
        out = out + pool.mlp(pool.norm(out))
    if pool.pool == "token":
        out = out[:, 0]
    elif pool.pool == "avg":
        out = out.mean(1)
    return out, probs


def block_feature(visual: TimmModel, tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(batch, dim) unit image feature of one block's output tokens through the pool and the modules after it, and
    the pool's attention probabilities."""
    trunk = visual.trunk
    pooled, probs = pool_with_probs(trunk.attn_pool, tokens)
    feature = visual.head(trunk.head(trunk.head_drop(trunk.fc_norm(pooled))))
    return F.normalize(feature.float(), dim=-1), probs


def _probe_row(score: torch.Tensor, probs: torch.Tensor) -> torch.Tensor:
    """(batch, patches) ReLU(d score / d probs), averaged over heads, the first latent's row."""
    grad = torch.autograd.grad(score, probs, retain_graph=True)[0]
    return grad.clamp(min=0).mean(dim=1)[:, 0].detach()


def min_max(rows: torch.Tensor) -> torch.Tensor:
    """Each row scaled to [0, 1] (a constant row gives zeros)."""
    low, high = rows.min(dim=1, keepdim=True).values, rows.max(dim=1, keepdim=True).values
    return (rows - low) / (high - low).clamp(min=1e-12)


def pool_sensitivity(visual: TimmModel, outputs: Sequence[torch.Tensor], texts: torch.Tensor,
                     neutral: torch.Tensor) -> torch.Tensor:
    """(texts, patches) the summed maps of the blocks read (``outputs``, one image copy per row of ``texts``, unit
    text features), 0 where the ``neutral`` (1, dim) feature's summed map, min-max normalised, passes the threshold."""
    total, background = 0, 0
    for tokens in outputs:
        feature, probs = block_feature(visual, tokens)
        total = total + _probe_row((feature * texts).sum(), probs)  # each copy of the image with its own text
        background = background + _probe_row((feature @ neutral.T).sum(), probs)
    return total.masked_fill(min_max(background) > NEUTRAL_THRESHOLD, 0)
