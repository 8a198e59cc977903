"""Time one `train-world` step of the embedded model's recipe in fp32 and in bf16, side by side in one run.

Each variant trains its own copy of the same freshly initialised model on the same batch (K = 16 training-only
concepts, benchmark share 0.35, batch 128), taking turns so that a busier stretch of the machine hits all alike.
Prints the best time of each and its ratio to fp32; drawing the batch is timed too.

    python scripts/train_step_bench.py [--repeat 5] [--batch-size 128] [--json PATH]
"""

from __future__ import annotations

import argparse
import copy
import logging
import sys
from pathlib import Path

import open_clip
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from explorer.models.model_configs import EMBEDDED_MODEL, register_configs  # noqa: E402
from explorer.speed_bench import timed, timed_side_by_side  # noqa: E402
from explorer.speed_report import emit, machine  # noqa: E402
from explorer.training.world_clip import (  # noqa: E402
    StepBatches, TrainConfig, keep_patch_embedding_fp32, make_optimizer, train_step,
)

VARIANTS = {  # name: (precision, patch embedding kept in fp32)
    "fp32": ("fp32", False),
    "bf16 (train-world --precision bf16)": ("bf16", True),
    "bf16, patch embedding in bf16 too": ("bf16", False),
}


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--json", help="also write the figures here")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    register_configs()
    model, _, preprocess = open_clip.create_model_and_transforms(EMBEDDED_MODEL, pretrained=None)
    cfg = TrainConfig(batch_size=args.batch_size, extra_concepts=16, benchmark_share=0.35)
    batches = StepBatches(cfg, 0, preprocess, open_clip.get_tokenizer(EMBEDDED_MODEL), model.visual.image_size[0])
    draw_s, batch = timed(lambda: batches[0], args.repeat)

    steps, first_loss = {}, {}
    for name, (precision, fp32_patches) in VARIANTS.items():
        copy_ = copy.deepcopy(model).train()
        if fp32_patches:
            keep_patch_embedding_fp32(copy_)
        optimizer = make_optimizer(copy_, cfg)
        steps[name] = lambda m=copy_, o=optimizer, prec=precision: train_step(m, o, batch, "cpu", prec)
        first_loss[name] = round(steps[name](), 4)  # the same model on the same batch; also allocates the optimizer
    best = timed_side_by_side(steps, args.repeat)
    fp32 = best["fp32"][0]
    report = {
        "machine": machine(), "batch_size": args.batch_size, "threads": args.threads, "repeat": args.repeat,
        "torch": torch.__version__,
        "draw_batch_s": round(draw_s, 3),
        "step_s": {name: round(seconds, 3) for name, (seconds, _) in best.items()},
        "speed_up_over_fp32": {name: round(fp32 / seconds, 2) for name, (seconds, _) in best.items()},
        "first_step_loss": first_loss,  # every variant's loss on its first step: they must train the same model
    }
    return emit(report, args.json)


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    main()
