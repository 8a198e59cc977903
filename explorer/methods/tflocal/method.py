"""The scoring of TFLocal, TFGlobal and the fine-tuned baseline (the Revisiting Compositionality paper).

TFLocal and TFGlobal run the alignment transformer (``explorer.models.modeling.alignment``) over the frozen encoder's
cached features; their weights come from ``train-align`` (the embedded model's ship in
``checkpoints/``). For another encoder without trained weights they run with seeded random weights and
say so in their evidence. ``finetune`` is global cosine under the fully fine-tuned encoder.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Sequence

import numpy as np
import torch
from safetensors.torch import load_file

from explorer.core.image_state import ImageState
from explorer.images.regions import visible_box
from explorer.methods.base import ScoringMethod, get_method
from explorer.methods.results import Score
from explorer.models import checkpoints
from explorer.models.encoders import DualEncoder
from explorer.models.loader import EncoderSpec, load_encoder, resolve
from explorer.models.modeling.alignment import AlignConfig, AlignmentTransformer, pair_inputs

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AttentionEvidence:
    """Cross-attention of each caption token over the image, for every layer and head."""

    tokens: tuple[str, ...]  # the caption's tokens as the encoder read them
    attention: np.ndarray  # (layers, heads, tokens, patches); rows sum to one over patches
    grid: tuple[int, int]  # the patch grid (h, w); (1, 1) for TFGlobal
    box: tuple[int, int, int, int]  # the part of the image the patch grid covers, in pixels
    cosine: float  # the global cosine the score head adds to
    trained: bool  # False: seeded random weights (no trained head for this encoder)

    def attention_map(self, tokens: Sequence[int], layer: int | None, head: int | None) -> np.ndarray:
        """The chosen tokens' attention over the patch grid (h, w): mean over tokens (all where none of them is a
        token here), and over layers / heads when None."""
        maps = self.attention.mean(0) if layer is None else self.attention[layer]
        maps = maps.mean(0) if head is None else maps[head]
        chosen = [t for t in tokens if 0 <= t < maps.shape[0]] or list(range(maps.shape[0]))
        return maps[chosen].mean(0).reshape(self.grid)


@dataclass(frozen=True)
class ImageSide:
    """What TFLocal and TFGlobal keep of an image (``ImageState.kept``): every layer's cross-attention keys and values
    of its tokens, each (1, heads, N, D / heads): a caption edit computes none of them."""

    keys: list[tuple[torch.Tensor, torch.Tensor]]


def load_aligner(path: str | Path) -> AlignmentTransformer:
    """Weights from ``train-align`` (safetensors) with the config in the ``.json`` beside them."""
    path = Path(path)
    record = json.loads(path.with_suffix(".json").read_text())
    model = AlignmentTransformer(AlignConfig(**record["align_config"]))
    model.load_state_dict(load_file(str(path)))
    return model.eval()


def shipped_or_given(checkpoint: str | None, variant: str, encoder: DualEncoder) -> Path | None:
    """The weights a method option names (a file or a shipped checkpoint's name), else the embedded model's shipped
    ones for ``variant`` (None for other encoders)."""
    if checkpoint:
        return resolve(checkpoint)[0]
    return checkpoints.for_variant(variant).path if encoder.is_embedded else None


class AlignedMethod(ScoringMethod):
    """TFLocal or TFGlobal over one frozen encoder."""

    variant: ClassVar[str]

    def __init__(self, encoder: DualEncoder, checkpoint: str | None = None, seed: int = 0) -> None:
        super().__init__(encoder)
        path = shipped_or_given(checkpoint, self.variant, encoder)
        if path is not None and path.is_file():
            self.model = load_aligner(path)
            if self.model.cfg.dim != encoder.embed_dim or self.model.cfg.variant != self.variant:
                raise ValueError(f"{path} is a {self.model.cfg.variant} aligner of width {self.model.cfg.dim}; "
                                 f"{encoder.label} needs {self.variant} with width {encoder.embed_dim}")
            self.trained = True
        else:
            if path is not None:
                log.warning("no %s weights at %s: using random weights", self.label, path)
            torch.manual_seed(seed)
            self.model = AlignmentTransformer(AlignConfig(encoder.embed_dim, self.variant)).eval()
            self.trained = False
        self.model.to(encoder.device)

    @torch.inference_mode()  # cheaper than no_grad: its outputs leave as floats and arrays, nothing needs autograd
    def score_new(self, state: ImageState, captions: Sequence[str]) -> list[Score]:
        """The aligner run on every (image, caption) pair; the image's keys are kept in its state."""
        img = self.encoder.encode_image(state)
        texts = self.encoder.encode_texts(captions)
        n = len(texts)
        inputs = pair_inputs(
            self.variant,
            img.embedding.expand(n, -1),
            img.patches.expand(n, -1, -1),
            torch.stack([t.embedding for t in texts]),
            [t.tokens for t in texts],
        )
        device = self.encoder.device
        kept = state.kept(ImageSide, lambda: ImageSide(self.model.image_keys(inputs[0][:1].to(device))), self.key)
        # the kept keys stand for the image: only the captions' side goes to the device
        values, maps = self.model(inputs[0][:1], *(x.to(device) for x in inputs[1:]), keys=kept.keys)
        grid = img.grid if self.variant == "local" else (1, 1)
        box = visible_box(state.image.width, state.image.height, self.encoder.preprocess)
        out = []
        for i, t in enumerate(texts):
            length = max(1, len(t.tokens)) if self.variant == "local" else 1
            tokens = t.token_text if self.variant == "local" else ("[caption]",)
            evidence = AttentionEvidence(tokens, maps[i, :, :, :length].float().cpu().numpy(), grid, box,
                                         float(inputs[3][i]), self.trained)
            out.append(Score(self.name, t.caption, float(values[i]), evidence))
        return out


class TFLocal(AlignedMethod):
    variant = "local"


class TFGlobal(AlignedMethod):
    variant = "global"


class FineTuned(ScoringMethod):
    """Global cosine under the encoder fine-tuned end to end on the same data (the baseline)."""

    def __init__(self, encoder: DualEncoder, checkpoint: str | None = None) -> None:
        super().__init__(encoder)
        path = shipped_or_given(checkpoint, "finetune", encoder)
        if path is None or not path.is_file():
            raise ValueError(f"no fine-tuned weights for {encoder.label}: train them with "
                             f"`python -m explorer train-align --variant finetune` and pass finetune.checkpoint=PATH")
        self.tuned = load_encoder(EncoderSpec(encoder.name, checkpoint=path, device=encoder.device,
                                              precision=encoder.precision))
        self.inner = get_method("global", self.tuned)

    def prepare(self, states: Sequence[ImageState]) -> None:
        self.inner.prepare(states)

    def score_new(self, state: ImageState, captions: Sequence[str]) -> list[Score]:
        return [Score(self.name, s.caption, s.value, s.evidence) for s in self.inner.score_new(state, captions)]
