"""PowerCLIP powerset alignment (the PowerCLIP paper): each node of the caption's tree takes its best subset of regions.

Regions (segments, random boxes, SAM masks or the world's objects) are laid on the patch grid; every
subset pools the patch tokens under its union. The score is the mean over tree nodes of the best
subset's cosine, enumerated exactly over the ``exact_limit`` largest regions; the NLA-scan value
(``explorer.methods.powerclip.alignment``: O(M) for a fixed patch grid, a lower bound, exact for disjoint orthogonal
regions) is reported beside it, over the same regions and over all of them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch
from PIL import Image

from explorer.core import cancel, image_state
from explorer.core.image_state import ImageState
from explorer.images.regions import Region, fill_color, patch_mask, random_regions, visible_box
from explorer.language.text import parse_many
from explorer.language.tree import TreeNode, parse_tree
from explorer.methods import proposals
from explorer.methods.base import ScoringMethod
from explorer.methods.powerclip.alignment import RegionGroups, exact_alignment, nla_scan, region_groups, subset_masks
from explorer.methods.results import Score
from explorer.models.encoders import DualEncoder

REGION_SOURCES = ("segments", "random", "sam", "world")


@dataclass(frozen=True)
class NodeAlignment:
    """One tree node's best region subset, exact and by the NLA."""

    node: TreeNode
    best: tuple[int, ...]  # regions of the exact best subset
    exact: float  # its cosine
    nla: float  # NLA-scan over the same regions (<= exact)
    error: float  # exact - nla
    nla_best: tuple[int, ...]  # NLA-scan's best subset over all regions
    nla_all: float  # NLA-scan over all regions


@dataclass(frozen=True)
class PowerCLIPEvidence:
    """What the UI shows: the tree, the regions, and each node's alignment with its timings."""

    tree: tuple[TreeNode, ...]
    regions: tuple[Region, ...]  # largest first: boxes and pixel masks
    masks: np.ndarray  # (M, h, w) bool: the regions on the patch grid
    box: tuple[int, int, int, int]  # the part of the image the patch grid covers, in pixels
    alignments: tuple[NodeAlignment, ...]  # one per tree node
    exact_regions: int  # how many of the largest regions were enumerated exactly
    exact_seconds: float  # this caption's enumeration; the image's groups and unions are made once per image
    nla_seconds: float


def world_regions(image: Image.Image, max_regions: int = 24, min_frac: float = 0.001) -> list[Region]:
    """Objects of a plain-background scene (the world's): connected parts unlike the background, largest first."""
    from scipy import ndimage

    rgb = np.asarray(image.convert("RGB"), dtype=np.int16)
    labels, n = ndimage.label(np.abs(rgb - np.array(fill_color(image))).max(-1) > 24)
    sizes = np.bincount(labels.ravel(), minlength=n + 1)[1:]
    out = []
    for i in np.argsort(-sizes)[:max_regions]:
        if sizes[i] < min_frac * labels.size:
            break
        mask = labels == i + 1
        ys, xs = np.nonzero(mask)
        out.append(Region((int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1), "world", mask))
    return out


def node_texts(captions: Sequence[str]) -> list[str]:
    """The text of every tree node of the captions (their parses made together): what PowerCLIP will encode."""
    parse_many(captions)
    return [n.text for c in captions for n in parse_tree(c)]


def members(rows: np.ndarray) -> list[tuple[int, ...]]:
    """The regions each row of a (nodes, regions) boolean matrix picks."""
    return [tuple(np.flatnonzero(row).tolist()) for row in rows]


@dataclass(frozen=True)
class RegionMasks:
    """What PowerCLIP keeps of an image's regions (``ImageState.kept``): the regions, largest first, and their
    (M, h*w) masks over the encoder's patch grid."""

    regions: tuple[Region, ...]
    masks: torch.Tensor


@dataclass(frozen=True)
class PatchGroups:
    """What PowerCLIP keeps of an image's patches (``ImageState.kept``): the groups of the largest regions (with their
    unions), and of every region (the same object where those are all)."""

    largest: RegionGroups
    every: RegionGroups


class PowerCLIP(ScoringMethod):

    def __init__(
        self,
        encoder: DualEncoder,
        regions: str = "segments",
        n_random: int = 8,
        seed: int = 0,
        sam_checkpoint: str | None = None,
        exact_limit: int = 10,
        max_regions: int = 24,
    ) -> None:
        super().__init__(encoder)
        if regions not in REGION_SOURCES:
            raise ValueError(f"unknown regions {regions!r}; known: {', '.join(REGION_SOURCES)}")
        if regions == "sam" and not sam_checkpoint:
            raise ValueError("regions='sam' needs sam_checkpoint, the path of a segment-anything checkpoint")
        self.source, self.n_random, self.seed, self.sam_checkpoint = regions, n_random, seed, sam_checkpoint
        self.exact_limit, self.max_regions = exact_limit, max_regions

    def companion_texts(self, captions: Sequence[str]) -> list[str]:
        return node_texts(captions)

    def proposers(self) -> list[proposals.Named]:
        """Where the regions are shared with SGI and computed off the critical path: segments and SAM."""
        if self.source == "segments":
            return [proposals.segmentation(self.max_regions)]
        if self.source == "sam":
            return [proposals.sam(str(self.sam_checkpoint), self.encoder.device, self.max_regions)]
        return []

    def regions(self, image: Image.Image | ImageState) -> list[Region]:
        """Region masks from the chosen source, largest first; the whole image when the source finds none."""
        state = image_state.of(image)
        image = state.image
        shared = self.proposers()
        if shared:
            found = proposals.regions(state, shared[0])
        elif self.source == "random":
            found = random_regions(image, self.n_random, self.seed)
        else:
            found = world_regions(image, self.max_regions)
        found = sorted((r for r in found if r.mask is not None and r.mask.any()), key=lambda r: -int(r.mask.sum()))
        whole = Region((0, 0, image.width, image.height), "image", np.ones((image.height, image.width), dtype=bool))
        return found[: self.max_regions] or [whole]

    def region_masks(self, image: Image.Image | ImageState,
                     grid: tuple[int, int]) -> tuple[tuple[Region, ...], torch.Tensor]:
        """The regions and their (M, h*w) patch-grid masks, kept in the image's state."""
        state = image_state.of(image)

        def compute() -> RegionMasks:
            regions = tuple(self.regions(state))
            box = visible_box(state.image.width, state.image.height, self.encoder.preprocess)
            return RegionMasks(regions, torch.from_numpy(np.stack([patch_mask(r.mask, grid, box) for r in regions])))

        kept = state.kept(RegionMasks, compute, self.key)
        return kept.regions, kept.masks

    def groups(self, state: ImageState, patches: torch.Tensor,
               masks: torch.Tensor) -> tuple[RegionGroups, RegionGroups]:
        """The patch groups of the ``exact_limit`` largest regions (with their unions) and of all, from the image's
        ``patches`` (h*w, D) and the regions' ``masks`` (M, h*w), kept in the image's state: a caption edit reads them
        and makes none."""
        def compute() -> PatchGroups:
            m = min(len(masks), self.exact_limit)
            largest = region_groups(patches, masks[:m], keep_unions=True)
            return PatchGroups(largest, largest if m == len(masks) else region_groups(patches, masks))

        kept = state.kept(PatchGroups, compute, self.key)
        return kept.largest, kept.every

    def prepare(self, states: Sequence[ImageState]) -> None:
        for feats, state in zip(self.encoder.encode_images(states), states):
            cancel.check()
            self.region_masks(state, feats.grid)

    def _score(
        self,
        patches: torch.Tensor,
        regions: tuple[Region, ...],
        masks: torch.Tensor,
        groups: tuple[RegionGroups, RegionGroups],
        grid: tuple[int, int],
        box: tuple[int, int, int, int],
        caption: str,
    ) -> Score:
        """``caption``'s score: its parse tree's nodes aligned with the region subsets of the image's ``patches``
        (h*w, D) under the regions' ``masks`` (M, h*w), exactly over the largest and by the NLAs over all."""
        tree = parse_tree(caption)
        texts = torch.stack([t.embedding for t in self.encoder.encode_texts([n.text for n in tree], companions=False)])
        m = min(len(regions), self.exact_limit)
        largest, every = groups
        start = time.perf_counter()
        exact = exact_alignment(patches, masks[:m], texts, groups=largest)
        middle = time.perf_counter()
        nla, nla_subsets = nla_scan(patches, masks[:m], texts, groups=largest)
        end = time.perf_counter()
        nla_all, nla_subsets = (nla, nla_subsets) if every is largest else nla_scan(patches, masks, texts, groups=every)
        # read out as Python values once: an element at a time, it took about 100 tensor operations per caption
        best, scanned, scanned_all = (values.tolist() for values in (exact.best, nla, nla_all))
        chosen, found = (members(rows.numpy()) for rows in (subset_masks(m)[exact.best_subset], nla_subsets.T))
        alignments = tuple(
            NodeAlignment(node, chosen[k], best[k], scanned[k], best[k] - scanned[k], found[k], scanned_all[k])
            for k, node in enumerate(tree)
        )
        evidence = PowerCLIPEvidence(
            tuple(tree), tuple(regions), masks.reshape(len(regions), *grid).numpy(), box, alignments, m,
            middle - start, end - middle,
        )
        return Score(self.name, caption, exact.t2r, evidence)

    def score_new(self, state: ImageState, captions: Sequence[str]) -> list[Score]:
        feats = self.encoder.encode_image(state)
        regions, masks = self.region_masks(state, feats.grid)
        groups = self.groups(state, feats.patches, masks)
        box = visible_box(state.image.width, state.image.height, self.encoder.preprocess)
        return [self._score(feats.patches, regions, masks, groups, feats.grid, box, c) for c in captions]
