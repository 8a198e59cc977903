"""Train a world dual encoder from scratch on the synthetic world's scenes and captions: the CLIP loss, or PowerCLIP's
with --objective powerclip. Training resumes from --run-dir when interrupted; at the end the weights, their .json
training record and their model card (.md, the model measured on the world) are written to --out. Without --out
this replaces the embedded model that the page and every command load when no model is named."""

from __future__ import annotations

import argparse
from pathlib import Path

from explorer.commands.common import add_flag
from explorer.core.settings import Settings
from explorer.models.checkpoints import EMBEDDED_CHECKPOINT
from explorer.training.config import TrainConfig, add_flags, from_args

NAME = "train-world"


def add_parser(sub, settings: Settings) -> argparse.ArgumentParser:
    t = sub.add_parser(NAME, help="train a world dual encoder from scratch (CLIP or PowerCLIP loss) and write its "
                                  "model card", description=__doc__)
    add_flags(t, TrainConfig)
    add_flag(t, "--out", f"weights file to write, its .json training record and .md model card beside it (default "
                         f"{EMBEDDED_CHECKPOINT}: the embedded model, replaced; give a path of your own to keep it)")
    add_flag(t, "--run-dir", "folder of the resumable training state (weights, optimizer, losses, saved every 50 "
                             "steps): the same command run again resumes there, and a different config there is "
                             "refused (default runs/train-world-OBJECTIVE-cCOVERAGE-sSEED)")
    add_flag(t, "--device", "cpu or cuda: where the towers train (default: cuda when present, else cpu); the model "
                            "card records which. The scenes are drawn on the CPU either way (--workers)")
    add_flag(t, "--workers", "processes that draw the training scenes on the CPU ahead of the model (default 0: drawn "
                             "in turn with each step); the batches are the same either way. Worth 2 or more on a "
                             "GPU, where drawing would keep it waiting; on a CPU they take cores from the towers' "
                             "--threads")
    add_flag(t, "--no-card", "skip measuring the trained model on the world (500 items of each test and drawn split) "
                             "and writing its model card; model-card --checkpoint OUT writes it later")
    t.set_defaults(func=run)
    return t


def train_config(args: argparse.Namespace) -> TrainConfig:
    """The ``TrainConfig`` that ``train-world``'s flags describe."""
    return from_args(TrainConfig, args)


def run(args: argparse.Namespace) -> int:
    from explorer.commands.model_card import write_card
    from explorer.models.encoders import default_device
    from explorer.training.world_clip import train

    cfg = train_config(args)
    out = Path(args.out or EMBEDDED_CHECKPOINT)
    run_dir = Path(args.run_dir or f"runs/train-world-{args.objective}-c{args.coverage}-s{args.seed}")
    train(cfg, run_dir, out, args.device or default_device(), args.workers)
    if not args.no_card:
        write_card(out, args.objective)
    return 0
