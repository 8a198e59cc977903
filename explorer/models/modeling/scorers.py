"""What ``train-align`` trains through: scores (I, C) of a batch's images against its captions.

A batch is anything with ``images`` (PIL), ``captions`` (str) and ``candidates`` ((I, C) bool: the pairs scored),
as ``explorer.training.align.Batch`` is.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from explorer.models.encoders import DualEncoder
from explorer.models.modeling.alignment import AlignmentTransformer, pair_inputs


class AlignScorer(torch.nn.Module):
    """Scores (I, C) of a batch's candidate pairs through the aligner, over the frozen encoder's features."""

    def __init__(self, encoder: DualEncoder, aligner: AlignmentTransformer) -> None:
        super().__init__()
        self.encoder, self.aligner = encoder, aligner

    def forward(self, batch) -> torch.Tensor:
        """The batch's I images against its C captions: the aligner's scores (I, C), 0 where not a candidate."""
        imgs = self.encoder.encode_images(batch.images)
        txts = self.encoder.encode_texts(batch.captions, companions=False)
        ii, cc = batch.candidates.nonzero(as_tuple=True)
        glob = torch.stack([f.embedding for f in imgs])
        patches = torch.stack([f.patches for f in imgs])
        tglob = torch.stack([t.embedding for t in txts])
        inputs = pair_inputs(self.aligner.cfg.variant, glob[ii], patches[ii], tglob[cc], [txts[c].tokens for c in cc])
        scores = torch.zeros(batch.candidates.shape)
        return scores.index_put((ii, cc), self.aligner(*inputs)[0])


class FinetuneScorer(torch.nn.Module):
    """All-pairs scaled cosines (I, C) under the encoder being fine-tuned."""

    def __init__(self, encoder: DualEncoder) -> None:
        super().__init__()
        self.encoder, self.model = encoder, encoder.model

    def forward(self, batch) -> torch.Tensor:
        """The batch's I images against its C captions: logit scale x cosine (I, C), every pair."""
        model = self.model
        x = torch.stack([self.encoder.preprocess(im.convert("RGB")) for im in batch.images])
        img = F.normalize(model.encode_image(x), dim=-1)
        txt = F.normalize(model.encode_text(self.encoder.tokenizer(batch.captions)), dim=-1)
        return model.logit_scale.exp() * img @ txt.T
