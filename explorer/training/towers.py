"""The image tower as training uses it: the global embedding with the patch tokens, and the tokens projected."""

from __future__ import annotations

import torch


def image_with_tokens(model: torch.nn.Module, images: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """One pass of the image tower: the global embedding (B, D) and the patch tokens before the projection."""
    visual = model.visual
    visual.output_tokens = True
    try:
        return visual(images)
    finally:
        visual.output_tokens = False


def project_tokens(model: torch.nn.Module, tokens: torch.Tensor) -> torch.Tensor:
    """Patch tokens into the joint space, as the global embedding is."""
    proj = model.visual.proj
    return tokens @ proj if proj is not None else tokens
