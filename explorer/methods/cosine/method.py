"""The baseline's scoring: cosine of the pooled image and caption embeddings."""

from __future__ import annotations

from typing import Sequence

from explorer.core.image_state import ImageState
from explorer.methods.base import ScoringMethod
from explorer.methods.results import Score


class GlobalCosine(ScoringMethod):

    def score_new(self, state: ImageState, captions: Sequence[str]) -> list[Score]:
        img = self.encoder.encode_image(state).embedding
        texts = self.encoder.encode_texts(captions)
        return [Score(self.name, t.caption, float(img @ t.embedding)) for t in texts]
