"""The baseline: cosine of the pooled image and caption embeddings."""

from __future__ import annotations

from typing import Sequence

from PIL import Image

from explorer.methods.base import Score, ScoringMethod, register


@register
class GlobalCosine(ScoringMethod):
    name = "global"
    label = "global cosine"

    def score(self, image: Image.Image, captions: Sequence[str]) -> list[Score]:
        img = self.encoder.encode_image(image).embedding
        texts = self.encoder.encode_texts(captions)
        return [Score(self.name, t.caption, float(img @ t.embedding)) for t in texts]
