"""Which heads tell caption A from caption B: each part of the image embedding (``explorer.explain.heads``) read
against the two captions. The global cosine is ``e . t / |e|`` (``t`` a unit text embedding), so cos(A) - cos(B) is
the sum over the parts ``p`` of ``p . (t_A - t_B) / |e|``: each head's share of the margin, in cosine units, the
shares of all parts (heads, MLPs, stem) adding up to the margin exactly. A head's map is the same share per patch.

The split of an image is kept in its state (``explorer.core.image_state``) per model, as the encoder keeps its
features: a new pair of captions is a dot product away."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch
from PIL import Image

from explorer.core import image_state
from explorer.core.image_state import ImageState
from explorer.explain.heads import HeadParts, decompose
from explorer.models.encoders import DualEncoder


@dataclass(frozen=True)
class HeadShares:
    """One image and two captions: the embedding (D,) before normalisation and its ``parts`` (any number, D), both
    cosines, each head's share of cos(A) - cos(B) (layers, heads), each head's share per patch (layers, heads, h, w),
    and the shares of what is not a head's patch: each head's class token, the MLPs (layers,), the stem."""

    captions: tuple[str, str]
    cosines: tuple[float, float]
    embedding: np.ndarray
    parts: np.ndarray
    shares: np.ndarray
    maps: np.ndarray
    class_token: np.ndarray
    mlps: np.ndarray
    stem: float

    @property
    def margin(self) -> float:
        """cos(A) - cos(B)."""
        return self.cosines[0] - self.cosines[1]

    def top(self, k: int = 5) -> list[tuple[int, int]]:
        """The ``k`` heads (layer, head) with the largest shares in size, largest first."""
        order = np.argsort(-np.abs(self.shares), axis=None)[:k]
        return [tuple(int(i) for i in np.unravel_index(o, self.shares.shape)) for o in order]  # type: ignore[misc]


def heads_key(encoder: DualEncoder) -> str:
    """The owner of an image's split in its state: one per model."""
    return f"{encoder.key}:heads"


def pixels_of(encoder: DualEncoder, images: Sequence[Image.Image]) -> torch.Tensor:
    return torch.stack([encoder.preprocess(im.convert("RGB")) for im in images]).to(encoder.device)


def image_parts(encoder: DualEncoder, image: Image.Image | ImageState) -> HeadParts:
    """The image's split by ``encoder``'s model, kept in the image's state."""
    state = image_state.of(image)
    return state.kept(HeadParts, lambda: decompose(encoder.model, pixels_of(encoder, [state.image]))[0],
                      heads_key(encoder))


def text_units(encoder: DualEncoder, captions: Sequence[str]) -> torch.Tensor:
    """(captions, D) the unit text embeddings, as the encoder keeps them."""
    return torch.stack([f.embedding for f in encoder.encode_texts(list(captions), companions=False)])


def direction(parts: HeadParts, texts: torch.Tensor) -> torch.Tensor:
    """(D,) the vector whose dot product with a part is its share of cos(A) - cos(B): (t_A - t_B) / |e|."""
    return (texts[0] - texts[1]).to(parts.embedding) / parts.embedding.norm()


def head_shares(encoder: DualEncoder, image: Image.Image | ImageState, captions: tuple[str, str]) -> HeadShares:
    """The image's split read against the two captions."""
    parts = image_parts(encoder, image)
    texts = text_units(encoder, captions)
    d = direction(parts, texts)
    per_token = (parts.heads @ d).cpu().numpy()  # (layers, heads, tokens)
    unit = parts.embedding / parts.embedding.norm()
    cosines = tuple(float(unit @ t.to(unit)) for t in texts)
    grid = parts.grid
    return HeadShares(tuple(captions), cosines, parts.embedding.cpu().numpy(),  # type: ignore[arg-type]
                      parts.parts.cpu().numpy(), per_token.sum(-1),
                      per_token[:, :, 1:].reshape(*per_token.shape[:2], *grid), per_token[:, :, 0],
                      (parts.mlps @ d).cpu().numpy(), float(parts.stem @ d))
