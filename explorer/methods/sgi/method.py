"""SGI's scoring: structure-guided inference (the Revisiting Compositionality paper): crops x caption segments,
best crop per segment, mean.

The crops are made as tensors on the encoder's device (``explorer.images.crops``), each distinct crop
encoded once in batches and kept in the image's state, so every caption (and every edit of one) reuses them.
``score_naive`` scores each image-caption pair on its own and encodes PIL crop by crop, as the published
code does; it exists to measure the speed-up and to check that both paths agree.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch
from PIL import Image
from scipy import ndimage

from explorer.core import cancel, image_state
from explorer.core.image_state import ImageState
from explorer.images.crops import crop_batch, image_tensor
from explorer.images.regions import (
    DEFAULT_SCALES, DEFAULT_STRIDE, Box, CropMode, Region, crop_image, fill_color, multiscale_crops, visible_extent,
)
from explorer.language import text
from explorer.language.prompts import prompts_of, segment_prompts
from explorer.methods import proposals as shared
from explorer.methods.base import Score, ScoringMethod
from explorer.methods.picture import prepared
from explorer.models.encoders import DualEncoder


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

    @property
    def allowed(self) -> np.ndarray:
        """(segments, regions) whether each segment may be matched to each region (``allowed``): its match is the
        best of its allowed cells; the pictures show the others apart."""
        kinds = rule_kinds([m.segment for m in self.matches])
        return np.stack([allowed(kind, self.regions) for kind in kinds])


@dataclass(frozen=True)
class RegionFeatures:
    """What SGI keeps of an image (``ImageState.kept``): its regions and their crops' embeddings."""

    regions: tuple[Region, ...]
    embeddings: torch.Tensor  # (regions, D), L2-normalized


TIE = 1e-6  # cosines this close are one: float32's last bits, which AVX2 and AVX512 kernels set apart
ZOOM_SMALL = 0.15  # chosen on the validation looks (docs/views.md): a thing this small against the frame's side is
ZOOM_SHARE = 0.35  # seen in a window it fills this share of; the world's smallest shapes (0.216) never are


def zoom_window(box: Box, extent: Box | None, size: tuple[int, int]) -> Box | None:
    """The window a mask crop of ``box`` shows where what it holds (``extent``: the box of its non-fill pixels) is a
    whole thing, clear of the box's edges, at most ``ZOOM_SMALL`` of the frame's longer side: a square around it that
    it fills ``ZOOM_SHARE`` of, so a small shape reaches the model enlarged. None: the whole frame, as ever (a
    piece cut by the box's edge stays as it lies)."""
    if extent is None or any(e == b for e, b in zip(extent, box)):
        return None
    x0, y0, x1, y1 = extent
    longest = max(x1 - x0, y1 - y0)
    if longest > ZOOM_SMALL * max(size):
        return None
    side = max(longest + 2, round(longest / ZOOM_SHARE))
    left, top = (x0 + x1 - side) // 2, (y0 + y1 - side) // 2
    return (left, top, left + side, top + side)


OBJECT_EDGE = 2  # px past an object's mask kept where SGI cuts its crops from the objects alone (``cut_from``)
OBJECT_MARGIN = 0.1  # of an object's longer side: its window reaches this far past its box on every side
PIECE = "piece"  # the source of a crop that cuts a drawn object: an object segment never matches it (the objects'
# windows stand in for its pieces); a relation's or a caption's segment reads every crop, as it always has


def object_boxes(state: ImageState) -> list[Box]:
    """The boxes of the objects drawn on the view's plain paper (its prepared ``Picture``); none for a picture whose
    frame is not plain (a photo): its objects are not flat shapes."""
    return prepared(state).boxes()


def cut_from(state: ImageState, fill: tuple[int, ...]) -> Image.Image:
    """The picture SGI's crops are cut from: the view as it is; on a page where lines of text were found (a slide's
    title and footer), its objects alone on ``fill``: text and drawn lines are not shapes, so a crop holding an object
    and a piece of a title or a page number shows that object alone, the same crop as its own window."""
    picture = prepared(state)
    mask = picture.mask()
    if not picture.text or mask is None:
        return state.image
    keep = ndimage.binary_dilation(mask, iterations=OBJECT_EDGE)
    pixels = np.asarray(state.image.convert("RGB"))
    return Image.fromarray(np.where(keep[..., None], pixels, np.asarray(fill, np.uint8)))


def object_regions(boxes: Sequence[Box], size: tuple[int, int]) -> list[Region]:
    """A window fitting each object, its box grown by ``OBJECT_MARGIN``: a segment that names one object can be
    matched to it alone, at any size and place in the picture."""
    w, h = size
    out = []
    for x0, y0, x1, y1 in boxes:
        m = round(OBJECT_MARGIN * max(x1 - x0, y1 - y0))
        out.append(Region((max(0, x0 - m), max(0, y0 - m), min(w, x1 + m), min(h, y1 + m)), "object"))
    return out


def cuts(box: Box, objects: Sequence[Box]) -> bool:
    """Whether ``box`` holds a piece of an object and not all of it: its crop would show a shape the picture does not
    (a star's two points read as a triangle)."""
    return any(min(box[2], o[2]) > max(box[0], o[0]) and min(box[3], o[3]) > max(box[1], o[1])
               and not (box[0] <= o[0] and box[1] <= o[1] and o[2] <= box[2] and o[3] <= box[3]) for o in objects)


def allowed(kind: str, regions: Sequence[Region]) -> np.ndarray:
    """(regions,) which regions a segment of ``kind`` may match: an object's the whole objects' windows and the crops
    that cut no object (no piece), a relation's or a caption's every crop as ever (no object window)."""
    skip = PIECE if kind == "object" else "object"
    return np.asarray([r.source != skip for r in regions], dtype=bool)


def rule_kinds(segments: Sequence[text.Segment]) -> list[str]:
    """The kind whose rule (``allowed``) each segment is matched by: its own, or "relation" for every segment of a
    caption with a relation (where things stand: its objects' crops hold where they stand)."""
    related = any(seg.kind == "relation" for seg in segments)
    return ["relation" if related else seg.kind for seg in segments]


def _best(row: np.ndarray, regions: Sequence[Region], kind: str) -> int:
    """The region a segment of ``kind`` matches, by ``row``, its similarity to each region (regions,): the best of
    those it may match (``allowed``); of regions that tie (within ``TIE``: crops that show the same pixels, whose
    cosines a batched matmul may part in the last bits), the tightest."""
    ok = allowed(kind, regions)
    top = row[ok].max()
    return int(min(np.flatnonzero(ok & (row >= top - TIE)), key=lambda k: regions[k].area))


def _inside(box: Box, window: Box) -> Box:
    """``box`` cut to ``window`` (what it cuts away is fill: the window holds all of the box's drawing)."""
    return (max(box[0], window[0]), max(box[1], window[1]), min(box[2], window[2]), min(box[3], window[3]))


class StructureGuided(ScoringMethod):

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

    def companion_texts(self, captions: Sequence[str]) -> list[str]:
        return prompts_of(captions)

    def proposers(self) -> list[shared.Named]:
        out = [shared.segmentation()] if self.proposals in ("segments", "crops+segments") else []
        return out + ([shared.sam(self.sam_checkpoint, self.encoder.device)] if self.sam_checkpoint else [])

    def regions(self, image: Image.Image | ImageState) -> list[Region]:
        state = image_state.of(image)
        regions = multiscale_crops(state.image.width, state.image.height, self.scales, self.stride)
        for proposer in self.proposers():
            regions += shared.regions(state, proposer)
        if self.proposals == "segments":
            regions = [r for r in regions if r.source != "crop"]
        objects = object_boxes(state)
        regions = [Region(r.box, PIECE, r.mask) if r.source == "crop" and cuts(r.box, objects) else r for r in regions]
        return regions + object_regions(objects, state.image.size)

    def crop_images(self, image: Image.Image, regions: Sequence[Region]) -> list[Image.Image]:
        """The regions' crops as PIL images: the published path (``score_naive``) and the tests' reference."""
        fill = fill_color(image)
        return [crop_image(image, r.box, self.crop_mode, fill) for r in regions]

    def distinct_boxes(
        self, image: Image.Image, regions: Sequence[Region], fill: tuple[int, ...]
    ) -> tuple[list[Box], list[int]]:
        """The box of each distinct crop once, and for every region the index of its crop.

        A mask crop is known by the extent of the non-fill pixels its box holds, so on a plain background boxes
        around the same objects share one crop; a resized crop by its box's size and pixels.
        """
        pixels = np.asarray(image.convert("RGB"))
        if self.crop_mode == "mask":
            nonfill = (pixels != np.asarray(fill, dtype=np.uint8)).any(axis=-1)
            keys: list[object] = [visible_extent(nonfill, r.box) for r in regions]
        else:
            keys = [(x1 - x0, y1 - y0, hashlib.sha1(pixels[y0:y1, x0:x1].tobytes()).hexdigest())
                    for x0, y0, x1, y1 in (r.box for r in regions)]
        first: dict[object, Box] = {}
        for k, r in zip(keys, regions):
            first.setdefault(k, r.box)
        row = {k: i for i, k in enumerate(first)}
        return list(first.values()), [row[k] for k in keys]

    def windows(self, image: Image.Image, boxes: Sequence[Box], fill: tuple[int, ...]) -> list[Box | None]:
        """Each mask crop's window: a square around what its box holds where that is a whole small thing
        (``zoom_window``), else None (the whole frame). The raw view's state gets none (``region_features``)."""
        if self.crop_mode != "mask":
            return [None] * len(boxes)
        nonfill = (np.asarray(image.convert("RGB")) != np.asarray(fill, dtype=np.uint8)).any(axis=-1)
        return [zoom_window(box, visible_extent(nonfill, box), image.size) for box in boxes]

    def region_features(self, image: Image.Image | ImageState) -> RegionFeatures:
        """Every region's crop made on the encoder's device and encoded in batches, each distinct crop once; kept in
        the image's state."""
        state = image_state.of(image)

        def encode() -> RegionFeatures:
            regions, fill = self.regions(state), fill_color(state.image)
            image = cut_from(state, fill) if self.crop_mode == "mask" else state.image
            boxes, rows = self.distinct_boxes(image, regions, fill)
            windows = [None] * len(boxes) if state.view == "raw" else self.windows(image, boxes, fill)
            boxes = [b if w is None else _inside(b, w) for b, w in zip(boxes, windows)]
            pixels = image_tensor(image, self.encoder.device)
            crops = crop_batch(pixels, boxes, self.crop_mode, fill, self.encoder.preprocessing, windows)
            shared.make_room()  # the crops' tower wants every core: a segmentation beside the analysis ends first
            return RegionFeatures(tuple(regions), self.encoder.embed_pixels(crops)[rows])

        return state.kept(RegionFeatures, encode, self.key)

    def prepare(self, states: Sequence[ImageState]) -> None:
        for state in states:
            cancel.check()  # a chunk's images are seconds of crops: a request given up stops between two
            self.region_features(state)

    def _score(self, regions: RegionFeatures, caption: str, naive: bool = False) -> Score:
        pairs = segment_prompts(caption)
        prompts = [p for _, p in pairs]
        if naive:
            seg_emb = torch.cat([self.encoder.embed_texts([p]) for p in prompts])
        else:
            seg_emb = torch.stack([t.embedding for t in self.encoder.encode_texts(prompts, companions=False)])
        matrix = (seg_emb @ regions.embeddings.T).numpy()
        kinds = rule_kinds([seg for seg, _ in pairs])
        best = [_best(row, regions.regions, kind) for kind, row in zip(kinds, matrix)]
        matches = tuple(
            SegmentMatch(seg, prompt, int(b), float(matrix[i, b]))
            for i, ((seg, prompt), b) in enumerate(zip(pairs, best))
        )
        value = float(np.mean([m.similarity for m in matches]))
        return Score(self.name, caption, value, SGIEvidence(regions.regions, matches, matrix))

    def score_new(self, state: ImageState, captions: Sequence[str]) -> list[Score]:
        return [self._score(self.region_features(state), c) for c in captions]

    def score_naive(self, image: Image.Image, captions: Sequence[str]) -> list[Score]:
        """The published way: each image-caption pair on its own, every crop and segment encoded one by one."""
        out = []
        for caption in captions:
            regions = self.regions(image)
            emb = torch.cat([self.encoder.embed_images([v]) for v in self.crop_images(image, regions)])
            out.append(self._score(RegionFeatures(tuple(regions), emb), caption, naive=True))
        return out
