"""Structure-guided inference (seeds 000/003): crops x caption segments, best crop per segment, mean.

Crops are encoded in batches once per image and cached, so every caption (and every edit of
one) reuses them. ``score_naive`` scores each image-caption pair on its own and encodes crop by
crop, as the published code does; it exists to measure the speed-up and to check that both
paths agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch
from PIL import Image

from explorer import text
from explorer.cache import LRUCache
from explorer.encoders import DualEncoder, image_key
from explorer.methods.base import Score, ScoringMethod, register
from explorer.regions import (
    DEFAULT_SCALES, DEFAULT_STRIDE, CropMode, Region, crop_view, fill_color, multiscale_crops, sam_regions,
    segment_regions, visible_extent,
)


@dataclass(frozen=True)
class SegmentMatch:
    segment: text.Segment
    prompt: str  # the text the encoder embedded for this segment
    crop: int  # index of the best region
    similarity: float


@dataclass(frozen=True)
class SGIEvidence:
    regions: tuple[Region, ...]
    matches: tuple[SegmentMatch, ...]
    matrix: np.ndarray  # (segments, regions) cosine similarities


@dataclass(frozen=True)
class RegionFeatures:
    regions: tuple[Region, ...]
    embeddings: torch.Tensor  # (regions, D), L2-normalized


def segment_prompts(caption: str) -> list[tuple[text.Segment, str]]:
    """Each segment with the words the encoder reads for it: "a black dog", "a dog on a sofa"."""
    doc = text.parse(caption)
    out = []
    for seg in text.segments(caption):
        if seg.kind == "caption":
            out.append((seg, caption))
            continue
        keep = set(seg.tokens)
        if seg.kind == "relation":
            first, last = min(seg.tokens), max(seg.tokens)
            mods = {m.i for k in (first, last) for m in text.modifiers(doc[k])}
            keep = {i for i in range(first, last + 1) if i not in mods}
        heads = [doc[i] for i in keep if doc[i].pos_ in ("NOUN", "PROPN")]
        dets = {c.i for h in heads for c in h.lefts if c.dep_ in ("det", "poss", "nummod")}
        words = [doc[i].text for i in sorted(keep | dets)]
        out.append((seg, " ".join(words)))
    return out


@register
class StructureGuided(ScoringMethod):
    name = "sgi"
    label = "SGI"

    def __init__(
        self,
        encoder: DualEncoder,
        scales: Sequence[float] = DEFAULT_SCALES,
        stride: float = DEFAULT_STRIDE,
        crop_mode: CropMode = "mask",
        proposals: str = "crops",
        sam_checkpoint: str | None = None,
    ) -> None:
        super().__init__(encoder)
        self.scales, self.stride, self.crop_mode = tuple(scales), stride, crop_mode
        self.proposals, self.sam_checkpoint = proposals, sam_checkpoint
        self._cache: LRUCache[RegionFeatures] = LRUCache()

    def regions(self, image: Image.Image) -> list[Region]:
        regions = multiscale_crops(image.width, image.height, self.scales, self.stride)
        if self.proposals in ("segments", "crops+segments"):
            regions += segment_regions(image)
        if self.sam_checkpoint:
            regions += sam_regions(image, self.sam_checkpoint, self.encoder.device)
        if self.proposals == "segments":
            regions = [r for r in regions if r.source != "crop"]
        return regions

    def views(self, image: Image.Image, regions: Sequence[Region]) -> list[Image.Image]:
        fill = fill_color(image)
        return [crop_view(image, r.box, self.crop_mode, fill) for r in regions]

    def distinct_views(self, image: Image.Image, regions: Sequence[Region]) -> tuple[list[Image.Image], list[int]]:
        """Each distinct view once, and for every region the index of its view.

        A mask view is known by the extent of the non-fill pixels its box holds, so on a plain background
        boxes around the same objects share one view without building it twice; other views by their pixels.
        """
        fill = fill_color(image)
        if self.crop_mode == "mask":
            nonfill = (np.asarray(image.convert("RGB")) != np.asarray(fill, dtype=np.uint8)).any(axis=-1)
            keys: list[object] = [visible_extent(nonfill, r.box) for r in regions]
            first = {k: r for k, r in reversed(list(zip(keys, regions)))}
            views = {k: crop_view(image, r.box, "mask", fill) for k, r in first.items()}
        else:
            every = [crop_view(image, r.box, self.crop_mode, fill) for r in regions]
            keys = [image_key(v) for v in every]
            views = {k: v for k, v in reversed(list(zip(keys, every)))}
        row = {k: i for i, k in enumerate(views)}
        return list(views.values()), [row[k] for k in keys]

    def region_features(self, image: Image.Image) -> RegionFeatures:
        """Every region of the image encoded in batches, each distinct view once; cached by image content."""
        def encode() -> RegionFeatures:
            regions = self.regions(image)
            views, rows = self.distinct_views(image, regions)
            return RegionFeatures(tuple(regions), self.encoder.embed_images(views)[rows])

        return self._cache.get_or_compute(image_key(image), encode)

    def prepare(self, images: Sequence[Image.Image]) -> None:
        for im in images:
            self.region_features(im)

    def _score(self, regions: RegionFeatures, caption: str, naive: bool = False) -> Score:
        pairs = segment_prompts(caption)
        prompts = [p for _, p in pairs]
        if naive:
            seg_emb = torch.cat([self.encoder.embed_texts([p]) for p in prompts])
        else:
            seg_emb = torch.stack([t.embedding for t in self.encoder.encode_texts(prompts)])
        matrix = (seg_emb @ regions.embeddings.T).numpy()
        best = matrix.argmax(axis=1)
        matches = tuple(
            SegmentMatch(seg, prompt, int(b), float(matrix[i, b])) for i, ((seg, prompt), b) in enumerate(zip(pairs, best))
        )
        value = float(np.mean([m.similarity for m in matches]))
        return Score(self.name, caption, value, SGIEvidence(regions.regions, matches, matrix))

    def score(self, image: Image.Image, captions: Sequence[str]) -> list[Score]:
        regions = self.region_features(image)
        return [self._score(regions, c) for c in captions]

    def score_naive(self, image: Image.Image, captions: Sequence[str]) -> list[Score]:
        """The published way: each image-caption pair on its own, every crop and segment encoded one by one."""
        out = []
        for caption in captions:
            regions = self.regions(image)
            emb = torch.cat([self.encoder.embed_images([v]) for v in self.views(image, regions)])
            out.append(self._score(RegionFeatures(tuple(regions), emb), caption, naive=True))
        return out
