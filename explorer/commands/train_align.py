"""Train TFLocal or TFGlobal (an alignment transformer over a frozen encoder's patch and token, or global, features) or
fine-tune the whole encoder (the baseline the two are compared with), on the world's swap items or on your own
COCO-style captions (--data). Training resumes from --run-dir when interrupted; under torchrun each rank trains its
share of every step (DDP, the same global batch). Over the embedded model on the world it replaces that variant's
shipped weights unless --out is given, and writes their model card."""

from __future__ import annotations

import argparse
from pathlib import Path

from explorer.commands.common import add_flag
from explorer.commands.model_args import encoder_spec, model_command
from explorer.core.settings import Settings
from explorer.models.checkpoints import ALIGN_VARIANTS, for_variant
from explorer.training.config import AlignTrainConfig, add_flags, from_args

NAME = "train-align"


def add_parser(sub, settings: Settings) -> argparse.ArgumentParser:
    a = model_command(sub, settings, NAME, "train TFLocal, TFGlobal or the fine-tuned baseline over an encoder", run,
                      description=__doc__)
    add_flags(a, AlignTrainConfig)
    shipped = ", ".join(f"{v}: {for_variant(v).name}" for v in ALIGN_VARIANTS)
    add_flag(a, "--out", f"weights file to write, its .json training record (and model card) beside it (default, "
                         f"for the embedded model trained on the world only: the variant's shipped checkpoint, "
                         f"replaced: {shipped}); needed with --data or another model")
    add_flag(a, "--run-dir", "folder of the resumable training state: the same command run again resumes there, and a "
                             "different config there is refused (default runs/train-align-VARIANT-OUTNAME-sSEED)")
    add_flag(a, "--no-card", "skip measuring the trained weights on the world (with the embedded encoder) and writing "
                             "their model card; training on --data writes no card anyway")
    return a


def run(args: argparse.Namespace) -> int:
    import logging

    from explorer.core import distributed
    from explorer.models.loader import load_encoder
    from explorer.training.align import train_align
    from explorer.training.card import write_align_card

    cfg = from_args(AlignTrainConfig, args)
    with distributed.session() as ctx:
        encoder = load_encoder(encoder_spec(args.settings))
        if args.out:
            out = Path(args.out)
        elif encoder.is_embedded and not args.data:
            out = for_variant(args.variant).path
        else:
            raise SystemExit("--out PATH is needed unless the embedded model is trained on the world")
        run_dir = Path(args.run_dir or f"runs/train-align-{args.variant}-{out.stem}-s{args.seed}")
        train_align(cfg, encoder, run_dir, out, ctx)
    if ctx.is_main and not args.no_card and not args.data:
        logging.getLogger(__name__).info("wrote %s", write_align_card(out))
    return 0
