"""The image tower's patch embedding kept in fp32 under bf16 autocast (``train-world --precision bf16``)."""

from __future__ import annotations

import torch


class PatchEmbeddingInFp32(torch.nn.Conv2d):
    """The image tower's patch embedding kept in fp32 under bf16 autocast, so pixels enter the model at full precision.

    A profile put its bf16 weight gradient above the fp32 one; timed side by side, whole steps with and without it
    are within noise of each other (``scripts/train_step_bench.py``), so it costs nothing either way.
    """

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Pixels (B, 3, S, S) -> patch embeddings (B, width, S / patch, S / patch), in fp32."""
        with torch.autocast(x.device.type, enabled=False):
            return super().forward(x.float())


def keep_patch_embedding_fp32(model: torch.nn.Module) -> None:
    """Give the image tower's patch embedding ``PatchEmbeddingInFp32``'s forward; weights and state-dict keys stay."""
    if type(model.visual.conv1) is torch.nn.Conv2d:
        model.visual.conv1.__class__ = PatchEmbeddingInFp32
