"""What every training run shares: the learning-rate schedule and the optimizer a config describes.

``cfg`` is any config with ``lr``, ``warmup``, ``steps`` and ``weight_decay`` (``TrainConfig``, ``AlignTrainConfig``).
"""

from __future__ import annotations

import math

import torch


def lr_at(step: int, cfg) -> float:
    """Linear warm-up then cosine decay to zero."""
    if step < cfg.warmup:
        return cfg.lr * (step + 1) / cfg.warmup
    progress = (step - cfg.warmup) / max(1, cfg.steps - cfg.warmup)
    return cfg.lr * 0.5 * (1 + math.cos(math.pi * progress))


def make_optimizer(model: torch.nn.Module, cfg) -> torch.optim.Optimizer:
    """AdamW, weight decay on the matrices only."""
    decay = [p for p in model.parameters() if p.ndim >= 2]
    no_decay = [p for p in model.parameters() if p.ndim < 2]
    groups = [{"params": decay, "weight_decay": cfg.weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=cfg.lr, betas=(0.9, 0.98), eps=1e-6)
