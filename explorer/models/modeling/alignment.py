"""The alignment transformer of TFLocal / TFGlobal (the Revisiting Compositionality paper), over a frozen
encoder's features.

Caption tokens are the queries. Each layer lets them attend to the image (cross-attention over the
projected patch tokens for TFLocal, over the one global image vector for TFGlobal), then to each other
(self-attention), then a feed-forward block; a score head reads the mean of the tokens and adds a
learned multiple of the global cosine. Every layer's and head's cross-attention weights are returned.
The width is the encoder's joint embedding width D: 3 layers of about 16 D^2 parameters each, about
12.6M for a ViT-B CLIP (D = 512) and 0.8M for the embedded world-clip (D = 128).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

VARIANTS = ("local", "global")
ImageKeys = list[tuple[torch.Tensor, torch.Tensor]]  # per layer: the image tokens' cross-attention keys and values
LAYERS = 3
HEADS = 4


@dataclass(frozen=True)
class AlignConfig:
    dim: int
    variant: str = "local"
    layers: int = LAYERS
    heads: int = HEADS


class AlignLayer(nn.Module):
    """Cross-attention to the image, self-attention among the caption's tokens, feed-forward; pre-norm."""

    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.norm_q, self.norm_kv, self.norm_self, self.norm_ff = (nn.LayerNorm(dim) for _ in range(4))
        self.cross = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.self_attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.ff = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def image_keys(self, image: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The cross-attention's keys and values of the image tokens (B, N, D), each (B, heads, N, D / heads)."""
        kv, heads = self.norm_kv(image), self.cross.num_heads
        _, wk, wv = self.cross.in_proj_weight.chunk(3)
        _, bk, bv = self.cross.in_proj_bias.chunk(3)
        return split_heads(F.linear(kv, wk, bk), heads), split_heads(F.linear(kv, wv, bv), heads)

    def forward(self, text: torch.Tensor, text_pad: torch.Tensor, keys: tuple[torch.Tensor, torch.Tensor]
                ) -> tuple[torch.Tensor, torch.Tensor]:
        """Caption tokens (B, T, D), True where padding in ``text_pad`` (B, T) -> the tokens (B, T, D) and the
        cross-attention weights (B, heads, T, N); ``keys``: ``image_keys`` of the image (batch B, or 1 for pairs that
        share one image).

        The two attentions are written out on their modules' weights: ``nn.MultiheadAttention``'s own forward checks
        and reshapes cost more than the arithmetic at a caption's size (docs/PERFORMANCE.md, "Design decisions")."""
        heads = self.cross.num_heads
        wq, bq = self.cross.in_proj_weight.chunk(3)[0], self.cross.in_proj_bias.chunk(3)[0]
        q = split_heads(F.linear(self.norm_q(text), wq, bq), heads)
        k, v = keys
        weights = torch.softmax((q * q.shape[-1] ** -0.5) @ k.transpose(-1, -2), dim=-1)  # (B, heads, T, N)
        text = text + self.cross.out_proj(merge_heads(weights @ v))
        qkv = F.linear(self.norm_self(text), self.self_attn.in_proj_weight, self.self_attn.in_proj_bias)
        q, k, v = (split_heads(t, heads) for t in qkv.chunk(3, dim=-1))
        attended = F.scaled_dot_product_attention(q, k, v, attn_mask=~text_pad[:, None, None, :])
        text = text + self.self_attn.out_proj(merge_heads(attended))
        return text + self.ff(self.norm_ff(text)), weights


def split_heads(x: torch.Tensor, heads: int) -> torch.Tensor:
    """(B, L, D) -> (B, heads, L, D / heads)."""
    return x.unflatten(-1, (heads, -1)).transpose(1, 2)


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """(B, heads, L, d) -> (B, L, heads * d)."""
    return x.transpose(1, 2).flatten(2)


class AlignmentTransformer(nn.Module):
    """score(image tokens, caption tokens) -> a scalar per pair, and the attention maps."""

    def __init__(self, cfg: AlignConfig) -> None:
        super().__init__()
        if cfg.variant not in VARIANTS:
            raise ValueError(f"unknown variant {cfg.variant!r}; known: {', '.join(VARIANTS)}")
        self.cfg = cfg
        self.text_in, self.image_in = nn.Linear(cfg.dim, cfg.dim), nn.Linear(cfg.dim, cfg.dim)
        self.layers = nn.ModuleList(AlignLayer(cfg.dim, cfg.heads) for _ in range(cfg.layers))
        self.head = nn.Sequential(nn.LayerNorm(cfg.dim), nn.Linear(cfg.dim, cfg.dim), nn.GELU(), nn.Linear(cfg.dim, 1))
        self.cosine_weight = nn.Parameter(torch.tensor(10.0))

    def image_keys(self, image: torch.Tensor) -> ImageKeys:
        """Every layer's cross-attention keys and values of the image tokens (P, N, D): the aligner's image side, the
        same for every caption of an image (TFLocal keeps it per image: a caption edit computes none of it)."""
        kv = self.image_in(image)
        return [layer.image_keys(kv) for layer in self.layers]

    def forward(
        self,
        image: torch.Tensor,
        text: torch.Tensor,
        text_pad: torch.Tensor,
        cosine: torch.Tensor,
        keys: ImageKeys | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Pairs: image (P, N, D), text (P, T, D), text_pad (P, T) True where padding, cosine (P,); ``keys``, when
        given, are ``image_keys(image)`` made before (batch P, or 1 for pairs of one image) and stand for the image.

        Returns scores (P,) and attention (P, layers, heads, T, N), each row summing to one over N.
        """
        x = self.text_in(text)
        maps = []
        for layer, layer_keys in zip(self.layers, self.image_keys(image) if keys is None else keys):
            x, w = layer(x, text_pad, layer_keys)
            maps.append(w)
        keep = (~text_pad).unsqueeze(-1).float()
        pooled = (x * keep).sum(1) / keep.sum(1).clamp_min(1)
        return self.head(pooled).squeeze(-1) + self.cosine_weight * cosine, torch.stack(maps, 1)

    @property
    def parameter_count(self) -> int:
        return sum(p.numel() for p in self.parameters())


def pad_tokens(rows: list[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    """Variable-length token rows (T_i, D) -> (B, T, D) and the padding mask (B, T); an empty row gets one zero
    token."""
    rows = [r if len(r) else torch.zeros(1, r.shape[-1]) for r in rows]
    out = nn.utils.rnn.pad_sequence(rows, batch_first=True)
    lengths = torch.tensor([len(r) for r in rows])
    return out, torch.arange(out.shape[1])[None] >= lengths[:, None]


def pair_inputs(
    variant: str,
    image_global: torch.Tensor,
    image_patches: torch.Tensor,
    text_global: torch.Tensor,
    text_tokens: list[torch.Tensor],
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """What the transformer reads for P pairs: TFLocal takes patches and tokens, TFGlobal the global vectors only.

    Takes the pairs' image vectors (P, D) and patches (P, N, D), caption vectors (P, D) and token rows (T_i, D);
    returns ``AlignmentTransformer``'s image (P, N, D), text (P, T, D), text_pad (P, T) and cosine (P,): for
    TFGlobal image (P, 1, D), text (P, 1, D) and text_pad (P, 1).
    """
    cosine = (F.normalize(image_global, dim=-1) * F.normalize(text_global, dim=-1)).sum(-1)
    if variant == "global":
        return image_global[:, None], text_global[:, None], torch.zeros(len(text_global), 1, dtype=torch.bool), cosine
    text, pad = pad_tokens(text_tokens)
    return image_patches, text, pad, cosine
