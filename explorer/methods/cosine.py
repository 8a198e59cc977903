"""The baseline: cosine of the pooled image and caption embeddings."""

from __future__ import annotations

from typing import Sequence

from explorer.core.image_state import ImageState
from explorer.methods.base import MethodInfo, Score, ScoringMethod, register


@register(MethodInfo("global", "global cosine", "cosine of the whole image and the whole caption", "-1 to 1",
                     page_order=0))
class GlobalCosine(ScoringMethod):

    def score_new(self, state: ImageState, captions: Sequence[str]) -> list[Score]:
        img = self.encoder.encode_image(state).embedding
        texts = self.encoder.encode_texts(captions)
        return [Score(self.name, t.caption, float(img @ t.embedding)) for t in texts]
