"""Train the embedded dual encoder from scratch on the synthetic world, CLIP-style.

Symmetric contrastive loss over in-batch pairs, no hard negatives: a faithful small CLIP.
Every batch is drawn from ``numpy.random.default_rng([seed, step])``, so a run resumed from
its last checkpoint continues exactly as if it had never stopped.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import time
from dataclasses import asdict
from pathlib import Path
from typing import Callable, Iterator

import numpy as np
import open_clip
import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file
from torch.nn.attention import SDPBackend, sdpa_kernel
from torchvision.transforms import Normalize
from tqdm import tqdm

from explorer import world
from explorer.models.model_configs import register_configs
from explorer.models.modeling.patch_embedding import keep_patch_embedding_fp32
from explorer.models.tower import cpu_has_native_bf16
from explorer.training import state
from explorer.training.config import OBJECTIVES, PRECISIONS, TrainConfig
from explorer.training.schedule import lr_at, make_optimizer
from explorer.training.towers import image_with_tokens
from explorer.world.space import ObjectSpace

log = logging.getLogger(__name__)

# An objective's term added to the CLIP loss: (model, patch tokens (B, N, width), scenes, captions) -> loss.
ExtraLoss = Callable[..., torch.Tensor]


def clip_loss(image: torch.Tensor, text: torch.Tensor, logit_scale: torch.Tensor) -> torch.Tensor:
    """Symmetric InfoNCE over the batch; ``image`` and ``text`` are L2-normalized."""
    logits = logit_scale * image @ text.T
    labels = torch.arange(len(image), device=image.device)
    return (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels)) / 2


def objective_term(cfg: TrainConfig, tokenizer, image_size: int, grid: int) -> ExtraLoss | None:
    """The term ``cfg.objective`` adds to the CLIP loss (None for plain CLIP)."""
    if cfg.objective not in OBJECTIVES:
        raise ValueError(f"unknown objective {cfg.objective!r}; known: {', '.join(OBJECTIVES)}")
    if cfg.objective == "powerclip":
        from explorer.training.powerclip import PowerCLIPLoss

        return PowerCLIPLoss(tokenizer, image_size, grid, weight=cfg.powerclip_lambda)
    return None


def training_objects(cfg: TrainConfig) -> frozenset[world.Combo]:
    """The colour-shape objects the training scenes are drawn from."""
    if cfg.object_space is None:
        return world.training_combos(cfg.coverage, cfg.extra_concepts)
    if cfg.extra_concepts or cfg.benchmark_share is not None:
        raise ValueError("--object-space takes its colours and shapes from the space: no --extra-concepts or "
                         "--benchmark-share with it")
    return ObjectSpace.parse(cfg.object_space).seen(cfg.coverage)


def check_precision(precision: str) -> None:
    if precision not in PRECISIONS:
        raise ValueError(f"unknown precision {precision!r}; known: {', '.join(PRECISIONS)}")


def warn_if_emulated(precision: str, device: str) -> bool:
    """Warn (and say so) where bf16 would run emulated: a CPU without AMX or AVX512-BF16."""
    emulated = precision == "bf16" and device == "cpu" and not cpu_has_native_bf16()
    if emulated:
        log.warning("this CPU multiplies bf16 without native support (no AMX or AVX512-BF16): a bf16 step is many "
                    "times slower than fp32 here; use --precision fp32")
    return emulated


@contextlib.contextmanager
def mixed_precision(device: str, precision: str) -> Iterator[None]:
    """Run the block in ``precision``: under bf16 autocast, or as it is for fp32.

    On the CPU, bf16 attention takes the math kernel: the fused (flash) kernel's bf16 backward is several times slower
    there than fp32 attention is.
    """
    check_precision(precision)
    if precision == "fp32":
        yield
        return
    device_type = torch.device(device).type
    attention = sdpa_kernel(SDPBackend.MATH) if device_type == "cpu" else contextlib.nullcontext()
    with torch.autocast(device_type, dtype=torch.bfloat16), attention:
        yield


def train_step(model: torch.nn.Module, optimizer: torch.optim.Optimizer, batch: tuple, device: str, precision: str,
               extra_loss: ExtraLoss | None = None) -> float:
    """One optimizer step on ``batch`` (scenes, captions, pictures, token ids): towers in ``precision``, loss in
    fp32."""
    scenes, captions, images, tokens = batch
    images, tokens = images.to(device), tokens.to(device)
    with mixed_precision(device, precision):
        if extra_loss is None:
            pooled = model.encode_image(images)
        else:
            pooled, tokens_out = image_with_tokens(model, images)
        encoded = model.encode_text(tokens)
        extra = None if extra_loss is None else extra_loss(model, tokens_out, scenes, captions).float()
    img, txt = F.normalize(pooled.float(), dim=-1), F.normalize(encoded.float(), dim=-1)
    loss = clip_loss(img, txt, model.logit_scale.exp())
    if extra is not None:
        loss = loss + extra
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        model.logit_scale.clamp_(0, math.log(100))
    return loss.item()


def device_label(device: str, threads: int) -> str:
    """Where training ran, for the record: the GPU's name, or the CPU thread count."""
    if device.startswith("cuda"):
        return f"{torch.cuda.get_device_name(torch.device(device))} (CUDA)"
    return f"{threads} CPU threads"


def preprocess_batch(preprocess, pictures: list) -> torch.Tensor:
    """``preprocess`` applied to each picture, stacked; pictures already at the model's size take one vectorized
    to-tensor-and-normalize (what the per-picture resize, crop, to-tensor and normalize come to there), bit for bit."""
    size = getattr(preprocess.transforms[0], "size", None)
    normalize = preprocess.transforms[-1]
    if not (isinstance(normalize, Normalize) and size and all(p.size == (size, size) and p.mode == "RGB"
                                                              for p in pictures)):
        return torch.stack([preprocess(p) for p in pictures])
    batch = torch.from_numpy(np.stack([np.asarray(p) for p in pictures])).permute(0, 3, 1, 2)
    return normalize(batch.float().div(255))


class StepBatches(torch.utils.data.Dataset):
    """Training step ``start + i``'s batch: scenes, captions, pictures and token ids, whichever process draws it."""

    def __init__(self, cfg: TrainConfig, start: int, preprocess, tokenizer, image_size: int) -> None:
        self.cfg, self.start, self.preprocess, self.tokenizer, self.image_size = cfg, start, preprocess, tokenizer, \
            image_size
        self.seen = training_objects(cfg)

    def __len__(self) -> int:
        return self.cfg.steps - self.start

    def __getitem__(self, i: int) -> tuple[list, list[str], torch.Tensor, torch.Tensor]:
        cfg = self.cfg
        rng = np.random.default_rng([cfg.seed, self.start + i])
        scenes, captions = world.training_batch(rng, cfg.batch_size, self.seen, cfg.partial_captions, cfg.grey_images,
                                                cfg.unnamed_colours, cfg.benchmark_share, cfg.varied_renders)
        return scenes, captions, preprocess_batch(self.preprocess, [s.render(self.image_size) for s in scenes]), \
            self.tokenizer(captions)


def _one_thread(_: int) -> None:
    torch.set_num_threads(1)


def train(cfg: TrainConfig, run_dir: Path, out: Path, device: str = "cpu", workers: int = 0) -> dict:
    """Train (or resume) on ``device`` and write ``out`` (safetensors) plus ``out``'s ``.json`` training record.

    The scenes are drawn on the CPU, by ``workers`` processes ahead of the model (0: in turn with it); the batches
    are the same either way.
    """
    torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    register_configs()
    model, _, preprocess = open_clip.create_model_and_transforms(cfg.model, pretrained=None)
    model.to(device)
    tokenizer = open_clip.get_tokenizer(cfg.model)
    optimizer = make_optimizer(model, cfg)
    image_size = model.visual.image_size[0]
    extra_loss = objective_term(cfg, tokenizer, image_size, model.visual.grid_size[0])
    check_precision(cfg.precision)
    warn_if_emulated(cfg.precision, device)
    training_objects(cfg)  # refuses a space it cannot draw from before any work
    if cfg.init:
        model.load_state_dict({k: v.float() for k, v in load_file(cfg.init).items()})
    if cfg.precision == "bf16":
        keep_patch_embedding_fp32(model)

    start, wall, losses = state.resume(run_dir, asdict(cfg), model, optimizer)

    model.train()
    batches = torch.utils.data.DataLoader(StepBatches(cfg, start, preprocess, tokenizer, image_size), batch_size=None,
                                          num_workers=workers, worker_init_fn=_one_thread if workers else None)
    bar = tqdm(batches, initial=start, total=cfg.steps, desc="train-world", unit="step")
    t0 = time.time()
    for step, (scenes, captions, images, tokens) in enumerate(bar, start):
        for group in optimizer.param_groups:
            group["lr"] = lr_at(step, cfg)
        loss = train_step(model, optimizer, (scenes, captions, images, tokens), device, cfg.precision, extra_loss)
        losses.append(round(loss, 4))
        bar.set_postfix(loss=f"{np.mean(losses[-20:]):.3f}")
        if (step + 1) % cfg.checkpoint_every == 0 or step + 1 == cfg.steps:
            state.save(run_dir, asdict(cfg), model, optimizer, step + 1, wall + time.time() - t0, losses)
    wall += time.time() - t0

    out.parent.mkdir(parents=True, exist_ok=True)
    save_file({k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}, str(out))
    record = {
        "config": asdict(cfg),
        "model_config": open_clip.get_model_config(cfg.model),
        "parameters": sum(p.numel() for p in model.parameters()),
        "images_seen": cfg.steps * cfg.batch_size,
        "init_sha256": None if cfg.init is None else hashlib.sha256(Path(cfg.init).read_bytes()).hexdigest(),
        "wall_s": round(wall, 1),
        "device": device_label(device, cfg.threads),
        "seen_combos": sorted("-".join(c) for c in training_objects(cfg)),
        "final_loss": float(np.mean(losses[-50:])),
        "loss_curve": losses[:: max(1, len(losses) // 50)],
        "torch": torch.__version__,
        "open_clip": open_clip.__version__,
    }
    out.with_suffix(".json").write_text(json.dumps(record, indent=2))
    log.info("wrote %s (%.1f MB) after %.0f s", out, out.stat().st_size / 1e6, wall)
    return record
