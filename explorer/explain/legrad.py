"""LeGrad (Bousselham, Boggust, Chaybouti, Strobelt and Kuehne, "LeGrad: An Explainability Method for Vision
Transformers via Feature Formation Sensitivity", ICCV 2025), for an open_clip ViT image tower.

For each image block l from ``layer_index`` up (negative: counted from the top; the authors' default -2 reads the
last two, a tower with fewer blocks whole; the project's, ``LAYER_INDEX``, is chosen on val): that block's own image
feature z_l = normalise(ln_post(mean over all its tokens, the class token's included) @ proj), s_l = <text feature,
z_l>; the map is the gradient of s_l by the block's attention probabilities, clamped at 0, averaged over heads and
over query rows, the class token's key dropped, on the patch grid; summed over the blocks and min-max normalised per
text (a constant sum gives zeros). This follows the authors' ``compute_legrad_clip`` (``legrad-torch``), written on the
open_clip in use through hooks (their package pins an open_clip whose blocks are sequence-first);
``scripts/legrad_reference.py`` checks the two agree.

A tower that pools its patches with an attention pool (SigLIP) gets the authors' variant for it,
``compute_legrad_siglip`` (``explorer.explain.legrad_pool``): each block's feature is its tokens through the tower's
own pool, and the gradient is by the pool's attention (its probe's row) instead of the block's. The structure of the
tower picks the variant.
"""

from __future__ import annotations

import threading
from typing import Any, Sequence

import torch
import torch.nn.functional as F
from PIL import Image

from explorer.explain.attention import AttentionExplainer, AttentionRecord, is_class_token_vit
from explorer.explain.base import Relevance, only_this_thread, register
from explorer.explain.legrad_pool import NEUTRAL_PROMPT, is_attention_pool_vit, min_max, pool_sensitivity
from explorer.models.encoders import DualEncoder

# The lowest block read. The authors' default is -2 (the last two blocks); chosen on val-id and val-heldout (5 swap
# items per kind, the embedded model's 4 blocks): from block 0 (every block) the peak lies on the named object for
# 76.25 and 54.37% of segments, from -3, -2 (the authors' default) and -1 for 46.88 / 36.88, 21.88 / 26.88 and
# 26.88 / 40.62 (docs/results/explanations/legrad-layers.json)
LAYER_INDEX = 0


@register("legrad", "LeGrad (Bousselham et al. 2025)")
class LeGrad(AttentionExplainer):
    settings = ("layer_index",)
    layer_index: int = LAYER_INDEX

    def __init__(self, encoder: DualEncoder, model: torch.nn.Module | None = None, **settings: Any) -> None:
        read = model if model is not None else encoder.model
        if not self.applies(read):
            raise ValueError(f"LeGrad reads an open_clip ViT that pools with its class token, or a ViT that pools its "
                             f"patches with an attention pool (SigLIP); {encoder.label}'s image tower "
                             f"({type(getattr(read, 'visual', read)).__name__}) is neither")
        super().__init__(encoder, model, **settings)
        self.pooled = is_attention_pool_vit(self.model)  # SigLIP's variant
        depth = len(self.blocks)
        if self.layer_index >= depth:
            raise ValueError(f"LeGrad's layer_index must lie below {depth}, the blocks of this tower, not "
                             f"{self.layer_index}")
        self._texts = threading.local()  # the texts' unit features of the pass under way, per thread

    @staticmethod
    def applies(model: torch.nn.Module) -> bool:
        return is_class_token_vit(model) or is_attention_pool_vit(model)

    @property
    def blocks(self) -> torch.nn.ModuleList:
        """The image tower's blocks, bottom up."""
        visual = self.model.visual
        return visual.trunk.blocks if self.pooled else visual.transformer.resblocks

    @property
    def first_block(self) -> int:
        """The lowest block read, counted from 0 (every block where ``layer_index`` reaches below the first)."""
        depth = len(self.blocks)
        return self.layer_index if self.layer_index >= 0 else max(0, depth + self.layer_index)

    def relevance(self, image: Image.Image, texts: Sequence[str]) -> list[Relevance]:
        with torch.no_grad():  # each block's score is against the text's feature, held fixed
            self._texts.features = self._encode_text(*texts)
            self._texts.neutral = self._encode_text(NEUTRAL_PROMPT) if self.pooled else None
        try:
            return super().relevance(image, texts)
        finally:
            del self._texts.features, self._texts.neutral

    def _encode_text(self, *texts: str) -> torch.Tensor:
        """(texts, dim) the unit text features."""
        ids = self.encoder.tokenizer(list(texts)).to(self.encoder.device)
        return F.normalize(self.model.encode_text(ids).float(), dim=-1)

    def hooks(self, record: list[Any]) -> list[torch.utils.hooks.RemovableHandle]:
        """The attention of every block (``AttentionRecord``s; none for the pooled variant) and the output tokens of
        each block read (tensors)."""
        handles = [] if self.pooled else super().hooks(record)
        first_token = not self.pooled and not getattr(self.model.visual.transformer, "batch_first", True)

        def keep(module: torch.nn.Module, args: tuple, out: torch.Tensor) -> None:
            record.append(out.transpose(0, 1) if first_token else out)  # (batch, tokens, width)

        for block in self.blocks[self.first_block:]:
            handles.append(block.register_forward_hook(only_this_thread(keep)))
        return handles

    def targets(self, record: list[Any]) -> list[torch.Tensor]:
        """Each block's map is taken here, before the cosine's backward frees the graph, and kept in ``record``; the
        cosine itself is differentiated by the last attention (the last block's tokens for the pooled variant) only
        (for the token shares' pass)."""
        outputs = [r for r in record if isinstance(r, torch.Tensor)]
        if self.pooled:
            record.append(pool_sensitivity(self.model.visual, outputs, self._texts.features, self._texts.neutral))
            return [outputs[-1]]
        attention = [r for r in record if isinstance(r, AttentionRecord)]
        record.append(self._sensitivity(attention[self.first_block:], outputs))
        return [attention[-1].probs]

    def _sensitivity(self, attention: list[AttentionRecord], outputs: list[torch.Tensor]) -> torch.Tensor:
        """(texts, patches) the sum over the blocks read of ReLU(d s_l / d A_l), averaged over heads and queries."""
        visual, texts = self.model.visual, self._texts.features
        total = 0
        for found, tokens in zip(attention, outputs):
            feature = visual.ln_post(tokens.mean(dim=1))
            feature = F.normalize((feature @ visual.proj if visual.proj is not None else feature).float(), dim=-1)
            score = (feature * texts).sum()  # each copy of the image with its own text
            grad = torch.autograd.grad(score, found.probs, retain_graph=True)[0]
            total = total + grad.clamp(min=0).mean(dim=(1, 2))[:, 1:].detach()
        return total

    def maps(self, record: list[Any], grads: Sequence[torch.Tensor]) -> torch.Tensor:
        relevance, visual = record[-1], self.model.visual
        h, w = visual.trunk.patch_embed.grid_size if self.pooled else visual.grid_size
        return min_max(relevance).reshape(len(relevance), h, w)
