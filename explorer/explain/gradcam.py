"""Grad-CAM (Selvaraju et al., ICCV 2017) on the last feature map of an image tower that is not a ViT: open_clip's
ModifiedResNet (RN50 and its kin: the output of ``layer4``, before the attention pool) and timm towers whose trunk
ends in stages of feature maps (ConvNeXt: the last stage). Each channel is weighed by the mean over the map of the
cosine's gradient by it (the text's feature fixed); the map is ReLU of the weighted sum of channels.
"""

from __future__ import annotations

from typing import Any, Sequence

import torch
from open_clip.modified_resnet import ModifiedResNet

from explorer.explain.base import Explainer, only_this_thread, register


def feature_layer(model: torch.nn.Module) -> torch.nn.Module | None:
    """The module whose output is the image tower's last (batch, channels, h, w) feature map; None if unknown."""
    visual = getattr(model, "visual", None)
    if isinstance(visual, ModifiedResNet):
        return visual.layer4
    stages = getattr(getattr(visual, "trunk", None), "stages", None)
    return stages[-1] if isinstance(stages, torch.nn.Sequential) and len(stages) else None


@register("gradcam", "Grad-CAM on the last feature map")
class GradCAM(Explainer):

    @staticmethod
    def applies(model: torch.nn.Module) -> bool:
        return feature_layer(model) is not None

    def hooks(self, record: list[Any]) -> list[torch.utils.hooks.RemovableHandle]:
        def keep(module: torch.nn.Module, args: tuple, out: torch.Tensor) -> None:
            record.append(out)

        return [feature_layer(self.model).register_forward_hook(only_this_thread(keep))]

    def targets(self, record: list[Any]) -> list[torch.Tensor]:
        return [record[-1]]

    def maps(self, record: list[Any], grads: Sequence[torch.Tensor]) -> torch.Tensor:
        features, grad = record[-1].detach(), grads[0].detach()
        weights = grad.mean(dim=(2, 3), keepdim=True)
        return (weights * features).sum(1).clamp(min=0)
