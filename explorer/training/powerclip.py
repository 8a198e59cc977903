"""PowerCLIP's training objective (the PowerCLIP paper): L = L_CLIP + lambda L_triplet on an NLA powerset score.

Regions are the scene's objects (what SAM returns on our flat world), laid on the patch grid; the
caption's tree nodes (``explorer.language.tree``) are embedded by the text tower. For image b and caption c
the score is

    s(b, c) = mean_k NLA-soft_k + max_k mean_S s_k(S)

over the additive surrogate ``a_ik = r_i . t_k`` (``explorer.methods.powerclip.alignment.surrogate_regions``): the first
term is text-to-region (each node's soft maximum over all 2^M region subsets, exact in O(M)), the
second region-to-text (the NLA-r2t lower bound, also O(M)). Both are computed for every pair in the
batch at once. The triplet term is bidirectional with the hardest in-batch negative (VSE++):
``relu(margin - s(b, b) + max_{c != b} s(b, c)) + relu(margin - s(b, b) + max_{c != b} s(c, b))``.
The negatives are other scenes' captions, never constructed swaps, like the CLIP loss beside it.
"""

from __future__ import annotations

import math
from typing import Sequence

import torch
import torch.nn.functional as F

from explorer import world
from explorer.images.regions import patch_mask
from explorer.language import text
from explorer.language.tree import parse_tree
from explorer.methods.powerclip.alignment import nla_soft, surrogate_regions
from explorer.training.towers import project_tokens

MARGIN = 0.2
WEIGHT = 1.0  # lambda
SUBSET = 8  # items of each batch that carry the triplet term: keeps a step within 1.1x of a CLIP step
TAU = 50.0  # sharpness of the soft maximum over subsets
PADDING = -1e3  # a missing region's score: exp(TAU * PADDING) is 0, so it joins no subset that matters


def object_masks(scenes: Sequence[world.Scene], image_size: int, grid: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Every scene's objects on the patch grid (as the powerset method lays regions),
    padded: (B, M, grid*grid), (B, M)."""
    m = max(len(s.objects) for s in scenes)
    masks = torch.zeros(len(scenes), m, grid * grid)
    valid = torch.zeros(len(scenes), m, dtype=torch.bool)
    whole = (0, 0, image_size, image_size)
    for b, scene in enumerate(scenes):
        for i, pixels in enumerate(scene.masks(image_size)):
            masks[b, i] = torch.from_numpy(patch_mask(pixels, (grid, grid), whole))
            valid[b, i] = True
    return masks, valid


def node_embeddings(model, tokenizer, captions: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor]:
    """Each caption's tree nodes embedded (unit), padded: (C, K, D) and which are real (C, K)."""
    text.parse_many(captions)
    trees = [[n.text for n in parse_tree(c)] for c in captions]
    unique = sorted({t for tree in trees for t in tree})
    index = {t: i for i, t in enumerate(unique)}
    device = model.logit_scale.device
    emb = F.normalize(model.encode_text(tokenizer(unique).to(device)), dim=-1)
    k = max(len(t) for t in trees)
    rows = torch.tensor([[index[t] for t in tree] + [0] * (k - len(tree)) for tree in trees], device=device)
    valid = torch.tensor([[True] * len(tree) + [False] * (k - len(tree)) for tree in trees], device=device)
    return emb[rows], valid


def powerset_scores(
    regions: torch.Tensor, region_valid: torch.Tensor, nodes: torch.Tensor, node_valid: torch.Tensor, tau: float = TAU
) -> torch.Tensor:
    """s(b, c) for every image b and caption c: (B, M, D), (B, M), (C, K, D), (C, K) -> (B, C)."""
    a = torch.einsum("bmd,ckd->bcmk", regions, nodes)
    a = a.masked_fill(~region_valid[:, None, :, None], PADDING)
    t2r = nla_soft(a, tau)  # (B, C, K)
    weights = node_valid.float() / node_valid.sum(-1, keepdim=True)
    t2r = (t2r * weights[None]).sum(-1)
    m = region_valid.sum(-1).float()  # (B,)
    mean_share = torch.pow(2.0, m - 1) / (torch.pow(2.0, m) - 1)  # mean over subsets of s_k(S) = share * sum_i a_ik
    column = (a * region_valid[:, None, :, None]).sum(-2) * mean_share[:, None, None]
    r2t = column.masked_fill(~node_valid[None], -math.inf).max(-1).values
    return t2r + r2t


def triplet_loss(scores: torch.Tensor, margin: float = MARGIN) -> torch.Tensor:
    """Bidirectional triplet margin loss with the hardest in-batch negative; scores (B, B), positives on the
    diagonal."""
    pos = scores.diagonal()
    off = scores.masked_fill(torch.eye(len(scores), dtype=torch.bool, device=scores.device), -math.inf)
    return (F.relu(margin - pos + off.max(1).values) + F.relu(margin - pos + off.max(0).values)).mean()


class PowerCLIPLoss:
    """The extra term of ``--objective powerclip``: lambda times the triplet loss on the powerset score."""

    def __init__(self, tokenizer, image_size: int, grid: int, weight: float = WEIGHT, subset: int = SUBSET) -> None:
        self.tokenizer, self.image_size, self.grid, self.weight = tokenizer, image_size, grid, weight
        self.subset = subset

    def __call__(self, model, tokens: torch.Tensor, scenes: Sequence[world.Scene],
                 captions: Sequence[str]) -> torch.Tensor:
        tokens, scenes, captions = tokens[: self.subset], scenes[: self.subset], captions[: self.subset]
        masks, region_valid = (t.to(tokens.device) for t in object_masks(scenes, self.image_size, self.grid))
        regions = surrogate_regions(F.normalize(project_tokens(model, tokens), dim=-1), masks)
        nodes, node_valid = node_embeddings(model, self.tokenizer, captions)
        return self.weight * triplet_loss(powerset_scores(regions, region_valid, nodes, node_valid))
