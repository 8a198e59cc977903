"""The model-randomization check of Adebayo et al. ("Sanity Checks for Saliency Maps", NeurIPS 2018): the image
tower's blocks re-drawn from the top down, one more at each step, on a copy of the model, and each explainer's maps
compared with the trained model's by Spearman's rank correlation over the patch grid. A map that keeps a high
correlation while the weights it explains are destroyed does not explain them.
"""

from __future__ import annotations

import copy
from typing import Any, Sequence

import numpy as np
import torch
from open_clip.modified_resnet import ModifiedResNet
from scipy.stats import spearmanr

from explorer.core import intervals
from explorer.explain.base import get_explainer
from explorer.models.encoders import DualEncoder

SEED = 0


def tower_blocks(model: torch.nn.Module) -> list[torch.nn.Module]:
    """The image tower's blocks, bottom up: a ViT's residual blocks, a ResNet's four stages, a timm trunk's stages (or
    its blocks: a timm ViT, SigLIP's tower)."""
    visual = model.visual
    if isinstance(visual, ModifiedResNet):
        return [visual.layer1, visual.layer2, visual.layer3, visual.layer4]
    transformer = getattr(visual, "transformer", None)
    if transformer is not None:
        return list(transformer.resblocks)
    trunk = visual.trunk
    return list(trunk.stages if hasattr(trunk, "stages") else trunk.blocks)


def randomized(model: torch.nn.Module, top: int, seed: int = SEED) -> torch.nn.Module:
    """A copy of ``model`` whose ``top`` highest image-tower blocks hold new weights: each tensor drawn from a
    normal distribution with its trained mean and spread (the scale kept, what was learned lost)."""
    out = copy.deepcopy(model)
    generator = torch.Generator().manual_seed(seed)
    blocks = tower_blocks(out)
    with torch.no_grad():
        for block in blocks[len(blocks) - top:]:
            for p in block.parameters():
                spread = float(p.std()) if p.numel() > 1 else 0.0
                drawn = torch.randn(p.shape, generator=generator) * spread + float(p.mean())
                p.copy_(drawn.to(p.device, p.dtype))
    return out.eval()


def rank_correlation(a: np.ndarray, b: np.ndarray) -> float | None:
    """Spearman's rho of two maps; None where either is constant (no ranking)."""
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        return None
    return float(spearmanr(a.ravel(), b.ravel()).statistic)


def sanity_report(encoder: DualEncoder, names: Sequence[str], pairs: Sequence[tuple[Any, str]]) -> dict:
    """For each explainer, per number of randomized blocks (top down): the mean rank correlation of its maps (each
    picture's caption and segments) with the trained model's, its 95% interval over maps, and the maps left out as
    constant."""
    images = [(picture.render(encoder.image_size), caption) for picture, caption in pairs]
    depth = len(tower_blocks(encoder.model))
    out: dict[str, dict] = {}
    for name in names:
        trained = [_grids(get_explainer(name, encoder), image, caption) for image, caption in images]
        curve: dict[str, list] = {"randomized_blocks": [], "spearman": [], "ci": [], "n": [], "constant": []}
        for top in range(1, depth + 1):
            explainer = get_explainer(name, encoder, randomized(encoder.model, top))
            rhos = [rank_correlation(a, b) for (image, caption), before in zip(images, trained)
                    for a, b in zip(before, _grids(explainer, image, caption))]
            kept = np.array([r for r in rhos if r is not None])
            low, high = intervals.percent_intervals(kept)[0] if len(kept) else (None, None)
            curve["randomized_blocks"].append(top)
            curve["spearman"].append(round(float(kept.mean()), 4) if len(kept) else None)
            curve["ci"].append([None if v is None else round(v / 100, 4) for v in (low, high)])
            curve["n"].append(len(kept))
            curve["constant"].append(len(rhos) - len(kept))
        out[name] = curve
    return {"blocks": depth, "maps": "each picture's own caption and its segments", "seed": SEED,
            "pictures": len(images), "explainers": out}


def _grids(explainer, image, caption) -> list[np.ndarray]:
    found = explainer.explain(image, caption)
    return [r.grid for r in (found.whole, *found.segments)]
