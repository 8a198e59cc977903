"""The binding probes of seed 002: from each object's colour and shape indices to a scene embedding."""

from __future__ import annotations

import torch
import torch.nn.functional as F


class SlotMLP(torch.nn.Module):
    """Each object's colour and shape one-hots through one shared MLP, summed over objects (order-free), then linear.

    It sees which colour goes with which shape, so it can represent binding (unlike a count of concepts).
    """

    def __init__(self, n_colors: int, n_shapes: int, width: int, out: int) -> None:
        super().__init__()
        self.n_colors, self.n_shapes = n_colors, n_shapes
        self.phi = torch.nn.Sequential(torch.nn.Linear(n_colors + n_shapes, width), torch.nn.ReLU(),
                                       torch.nn.Linear(width, width), torch.nn.ReLU())
        self.head = torch.nn.Linear(width, out)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        x = torch.cat([F.one_hot(idx[..., 0], self.n_colors), F.one_hot(idx[..., 1], self.n_shapes)], -1).float()
        return self.head(self.phi(x).sum(dim=1))


class ConceptProbe(torch.nn.Module):
    """Colour and shape embeddings joined per object, summed over objects, then one linear layer.

    ``product``: colour (x) shape elementwise, a compressed tensor product that binds each colour to its shape,
    so swapped scenes get different predictions. ``sum``: colour + shape, the same parameters, blind to swaps
    (both scenes of a swap hold the same colours and shapes).
    """

    def __init__(self, n_colors: int, n_shapes: int, width: int, out: int, join: str) -> None:
        super().__init__()
        self.join = join
        self.colors = torch.nn.Embedding(n_colors, width)
        self.shapes = torch.nn.Embedding(n_shapes, width)
        self.head = torch.nn.Linear(width, out)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        c, s = self.colors(idx[..., 0]), self.shapes(idx[..., 1])
        return self.head((c * s if self.join == "product" else c + s).sum(dim=1))
