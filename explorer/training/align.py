"""``train-align``: TFLocal, TFGlobal, or full fine-tuning of the encoder, on the same data and budget.

Every step draws ``batch_items`` swap items of random kinds over the world's training objects (two
images, two captions each: each caption's hard negatives are the other image and the swapped caption),
or, with ``--data``, image-caption pairs from a COCO-style JSON whose hard negatives are captions with
a swap proposed by ``explorer.language.text``. All images in the step are scored against all captions; the loss is
cross-entropy from each image to its caption and from each caption to its image. TFLocal and TFGlobal
train only the alignment transformer over the frozen encoder's features; ``finetune`` trains the whole
encoder with its cosine. Batches come from ``numpy.random.default_rng([seed, step])``, so a run resumed
from ``last.pt`` continues exactly.

Under torchrun the trained module is wrapped in DistributedDataParallel. A step's global batch of
``batch_items`` is cut into ``world_size x A`` parts of at most ``micro_items`` (part ``k`` drawn from
``default_rng([seed, step, k])``); rank ``r`` takes parts ``r, r + W, ...`` and accumulates their gradients,
weighted by their share of the global batch, before one synchronised optimizer step. One process with
``micro_items`` = half the batch therefore sees the same data as two ranks. Rank 0 writes the checkpoints and
the weights; a resumed run reads rank 0's ``last.pt`` and hands it to every rank.
"""

from __future__ import annotations

import json
import logging
import time
from contextlib import nullcontext
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Sequence

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image
from safetensors.torch import save_file
from tqdm import tqdm

from explorer import world
from explorer.core import distributed
from explorer.images.inputs import InputError, load_image
from explorer.language import text
from explorer.models.encoders import DualEncoder
from explorer.models.modeling.alignment import AlignConfig, AlignmentTransformer
from explorer.models.modeling.scorers import AlignScorer, FinetuneScorer
from explorer.training import state
from explorer.training.config import VARIANTS, AlignTrainConfig
from explorer.training.schedule import lr_at, make_optimizer

log = logging.getLogger(__name__)

RANDOM_NEGATIVES = 6  # other captions of the batch each image is also scored against


@dataclass(frozen=True)
class Batch:
    images: list[Image.Image]
    captions: list[str]  # caption i describes image i; the rest are hard negatives only
    caption_image: list[int]  # the image each caption describes; -1 for a hard-negative-only caption
    candidates: torch.Tensor  # (I, C) bool: the pairs scored: own caption, hard negatives, random others


def load_pairs(data: str | Path, images: str | Path | None = None) -> list[tuple[Path, str]]:
    """(image path, caption) from a COCO-style JSON:
    {"images": [{id, file_name}], "annotations": [{image_id, caption}]}."""
    data = Path(data)
    try:
        record = json.loads(data.read_text())
        files = {im["id"]: im["file_name"] for im in record["images"]}
        folder = Path(images) if images else data.parent
        pairs = [(folder / files[a["image_id"]], str(a["caption"]).strip()) for a in record["annotations"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"{data} is not a COCO-style captions file ({exc.__class__.__name__}: {exc}); expected "
                         '{"images": [{"id", "file_name"}], "annotations": [{"image_id", "caption"}]}') from exc
    missing = [p for p, _ in pairs if not p.is_file()]
    if not pairs or missing:
        raise InputError(f"{data}: {len(missing)} of {len(pairs)} images not found (first: {missing[:1]}); "
                         "pass --images DIR")
    return pairs


def candidate_pairs(rng: np.random.Generator, hard: list[list[int]], n_captions: int) -> torch.Tensor:
    """(I, C) bool: image i against caption i, its hard-negative captions ``hard[i]`` and RANDOM_NEGATIVES others."""
    out = torch.zeros(len(hard), n_captions, dtype=torch.bool)
    for i, negatives in enumerate(hard):
        others = rng.choice(n_captions, size=min(n_captions, RANDOM_NEGATIVES + 1), replace=False)
        out[i, [i, *negatives, *others.tolist()]] = True
    return out


def world_batch(rng: np.random.Generator, n: int, seen: frozenset, size: int, varied: float = 0.0) -> Batch:
    items = world.training_swaps(rng, n, seen, varied)
    images = [scene.render(size) for it in items for scene in it.images]
    captions = [c for it in items for c in it.captions]
    hard = [[i ^ 1] for i in range(len(images))]  # the other caption of the same swap item
    return Batch(images, captions, list(range(len(captions))), candidate_pairs(rng, hard, len(captions)))


def pairs_batch(rng: np.random.Generator, n: int, pairs: Sequence[tuple[Path, str]]) -> Batch:
    picked = [pairs[i] for i in rng.choice(len(pairs), size=min(n, len(pairs)), replace=False)]
    captions = [c for _, c in picked]
    hard: list[list[int]] = []
    for caption in list(captions):
        swap = text.propose_swap(caption)
        if swap is not None:
            captions.append(swap.caption)
        hard.append([len(captions) - 1] if swap is not None else [])
    owners = list(range(len(picked))) + [-1] * (len(captions) - len(picked))
    return Batch([load_image(p) for p, _ in picked], captions, owners, candidate_pairs(rng, hard, len(captions)))


def batch_loss(scores: torch.Tensor, batch: Batch) -> torch.Tensor:
    """Cross-entropy over the scored pairs from image i to caption i, and from each described caption to its image."""
    owner = torch.tensor(batch.caption_image)
    if not torch.equal(owner[: len(scores)], torch.arange(len(scores))):
        raise ValueError("caption i must describe image i for every image i")
    scores = scores.masked_fill(~batch.candidates, float("-inf"))
    described = (owner >= 0).nonzero().squeeze(1)
    i2t = F.cross_entropy(scores, torch.arange(len(scores)))
    t2i = F.cross_entropy(scores[:, described].T, owner[described])
    return (i2t + t2i) / 2


def step_parts(cfg: AlignTrainConfig, world_size: int) -> list[int]:
    """Items in each part of a step's global batch: ``world_size`` ranks x the micro-batches each accumulates."""
    if cfg.batch_items < world_size:
        raise ValueError(f"--batch-items {cfg.batch_items} cannot be shared by {world_size} ranks")
    n = world_size * -(-cfg.batch_items // (world_size * (cfg.micro_items or cfg.batch_items)))
    return [cfg.batch_items // n + (k < cfg.batch_items % n) for k in range(n)]


def train_align(cfg: AlignTrainConfig, encoder: DualEncoder, run_dir: Path, out: Path,
                ctx: distributed.Context = distributed.SINGLE) -> dict:
    """Train (or resume) one variant and write ``out`` (safetensors) with its ``.json`` record (rank 0)."""
    if cfg.variant not in VARIANTS:
        raise ValueError(f"unknown variant {cfg.variant!r}; known: {', '.join(VARIANTS)}")
    torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    pairs = load_pairs(cfg.data, cfg.images) if cfg.data else None
    seen = world.seen_combos(cfg.coverage, world.DEFAULT_WORLD_SEED)
    if cfg.variant == "finetune":
        trained: torch.nn.Module = encoder.model
        scorer: torch.nn.Module = FinetuneScorer(encoder)
        lr = cfg.finetune_lr
    else:
        align_cfg = AlignConfig(encoder.embed_dim, cfg.variant)
        trained = AlignmentTransformer(align_cfg)
        scorer = AlignScorer(encoder, trained)
        lr = cfg.lr
    schedule = replace(cfg, lr=lr)
    optimizer = make_optimizer(trained, schedule)
    parts = step_parts(cfg, ctx.world_size)
    accumulate = len(parts) // ctx.world_size  # micro-batches per rank and step
    saved = distributed.broadcast(state.read(run_dir, asdict(cfg)) if ctx.is_main else None, ctx)
    start, wall, losses = state.apply(saved, trained, optimizer)
    if ctx.world_size > 1:  # after loading: DDP starts every rank from rank 0's weights
        scorer = torch.nn.parallel.DistributedDataParallel(scorer)

    def draw(step: int, k: int) -> Batch:
        rng = np.random.default_rng([cfg.seed, step] if len(parts) == 1 else [cfg.seed, step, k])
        if pairs is None:
            return world_batch(rng, parts[k], seen, encoder.image_size, cfg.varied_renders)
        return pairs_batch(rng, parts[k], pairs)

    trained.train()
    bar = tqdm(range(start, cfg.steps), initial=start, total=cfg.steps, desc=f"train-align {cfg.variant}", unit="step",
               disable=not ctx.is_main)
    t0 = time.time()
    for step in bar:
        for group in optimizer.param_groups:
            group["lr"] = lr_at(step, schedule)
        optimizer.zero_grad(set_to_none=True)
        loss_sum = 0.0
        for j, k in enumerate(range(ctx.rank, len(parts), ctx.world_size)):
            batch = draw(step, k)
            share = parts[k] / cfg.batch_items
            last = j == accumulate - 1
            with nullcontext() if last or ctx.world_size == 1 else scorer.no_sync():  # one all-reduce a step
                loss = batch_loss(scorer(batch), batch)
                (share * ctx.world_size * loss).backward()  # DDP averages over ranks
            loss_sum += share * loss.item()
        optimizer.step()
        losses.append(round(distributed.total(loss_sum, ctx), 4))
        bar.set_postfix(loss=f"{np.mean(losses[-20:]):.3f}")
        if ctx.is_main and ((step + 1) % cfg.checkpoint_every == 0 or step + 1 == cfg.steps):
            state.save(run_dir, asdict(cfg), trained, optimizer, step + 1, wall + time.time() - t0, losses)
    wall += time.time() - t0
    trained.eval()
    digests = distributed.gather(state.digest(trained), ctx)
    if len(set(digests)) > 1:
        raise RuntimeError(f"the ranks' weights differ after training: {digests}")
    record = {
        "config": asdict(cfg),
        "world_size": ctx.world_size,
        "weights_sha256": digests,  # one per rank, all equal
        "encoder": encoder.label,
        "encoder_model": encoder.name,
        "trainable_parameters": sum(p.numel() for p in trained.parameters()),
        "wall_s": round(wall, 1),
        "final_loss": float(np.mean(losses[-50:])),
        "loss_curve": losses[:: max(1, len(losses) // 50)],
        "torch": torch.__version__,
    }
    if cfg.variant != "finetune":
        record["align_config"] = asdict(align_cfg)
    if ctx.is_main:
        out.parent.mkdir(parents=True, exist_ok=True)
        save_file({k: v.contiguous() for k, v in trained.state_dict().items()}, str(out))
        out.with_suffix(".json").write_text(json.dumps(record, indent=2) + "\n")
        log.info("wrote %s after %.0f s", out, wall)
    return record
