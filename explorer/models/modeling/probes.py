"""The binding paper's probes: from each object's colour and shape indices to a scene embedding.

Each probe holds ``copies`` independent sets of weights (a model's probe is one copy; a null's draws are fitted
together, ``fit_copies``) and maps indices (N, objects, 2) to predictions (copies, N, out).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from explorer.core import cancel


def _uniform(copies: int, fan_in: int, *shape: int) -> torch.nn.Parameter:
    """Weights drawn as ``torch.nn.Linear`` draws its own: uniform within 1 / sqrt(fan_in)."""
    bound = 1 / math.sqrt(fan_in)
    return torch.nn.Parameter(torch.empty(copies, *shape).uniform_(-bound, bound))


class _Linear(torch.nn.Module):
    """``copies`` linear layers side by side: (copies, ..., fan_in) to (copies, ..., out)."""

    def __init__(self, copies: int, fan_in: int, out: int) -> None:
        super().__init__()
        self.weight, self.bias = _uniform(copies, fan_in, fan_in, out), _uniform(copies, fan_in, out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shape = x.shape
        y = torch.bmm(x.reshape(shape[0], -1, shape[-1]), self.weight) + self.bias[:, None]
        return y.reshape(*shape[:-1], -1)


class SlotMLP(torch.nn.Module):
    """Each object's colour and shape one-hots through one shared MLP, summed over objects (order-free), then linear.

    It sees which colour goes with which shape, so it can represent binding (unlike a count of concepts).
    """

    def __init__(self, n_colors: int, n_shapes: int, width: int, out: int, copies: int = 1) -> None:
        super().__init__()
        self.n_colors, self.n_shapes, self.copies = n_colors, n_shapes, copies
        self.phi = torch.nn.ModuleList([_Linear(copies, n_colors + n_shapes, width), _Linear(copies, width, width)])
        self.head = _Linear(copies, width, out)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        """Each scene's objects' (colour, shape) indices (N, objects, 2) -> predictions (copies, N, out)."""
        x = torch.cat([F.one_hot(idx[..., 0], self.n_colors), F.one_hot(idx[..., 1], self.n_shapes)], -1).float()
        h = x.expand(self.copies, *x.shape)
        for layer in self.phi:
            h = torch.relu(layer(h))
        return self.head(h.sum(dim=2))


class ConceptProbe(torch.nn.Module):
    """Colour and shape embeddings joined per object, summed over objects, then one linear layer.

    ``product``: colour (x) shape elementwise, a compressed tensor product that binds each colour to its shape,
    so swapped scenes get different predictions. ``sum``: colour + shape, the same parameters, blind to swaps
    (both scenes of a swap hold the same colours and shapes). ``both``: the two side by side into one head, so what
    it fits beyond ``sum`` is what the product adds to an additive code.
    """

    JOINS = ("product", "sum", "both")

    def __init__(self, n_colors: int, n_shapes: int, width: int, out: int, join: str, copies: int = 1) -> None:
        super().__init__()
        if join not in self.JOINS:
            raise ValueError(f"join is one of {', '.join(self.JOINS)}, not {join!r}")
        self.join = join
        self.colors = torch.nn.Parameter(torch.randn(copies, n_colors, width))  # as torch.nn.Embedding draws
        self.shapes = torch.nn.Parameter(torch.randn(copies, n_shapes, width))
        self.head = _Linear(copies, width * (2 if join == "both" else 1), out)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        """Each scene's objects' (colour, shape) indices (N, objects, 2) -> predictions (copies, N, out)."""
        c, s = self.colors[:, idx[..., 0]], self.shapes[:, idx[..., 1]]
        joined = {"product": lambda: c * s, "sum": lambda: c + s, "both": lambda: torch.cat([c + s, c * s], -1)}
        return self.head(joined[self.join]().sum(dim=2))


def fit_copies(make, x: torch.Tensor, ys: torch.Tensor, steps: int = 600, lr: float = 1e-2, seed: int = 0):
    """Fit the probe ``make(copies)``, copy b to (x, ys[b]), and return its prediction ``predict(idx)``.

    ``x``: the scenes' indices (N, objects, 2); ``ys``: each copy's targets (copies, N, out); ``predict`` maps
    indices (M, objects, 2) to predictions (copies, M, out).

    One Adam on the sum of the copies' mean squared errors: each copy's gradient is its own loss's and Adam works
    element by element, so each copy trains as it would alone. The weights are drawn after
    ``torch.manual_seed(seed)``.
    """
    torch.manual_seed(seed)
    model = make(len(ys))
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=1e-4)
    for _ in range(steps):
        cancel.check()  # the binding tab's probes: a page's request given up stops within a step
        opt.zero_grad()
        loss = ((model(x) - ys) ** 2).mean(dim=(1, 2)).sum()
        loss.backward()
        opt.step()
    return lambda idx: model(idx).detach()
