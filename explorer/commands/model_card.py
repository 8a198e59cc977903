"""Measure a trained checkpoint (train-world's or train-align's) on the world and (re)write its model card, the .md
beside its weights; the figures are also written into its .json record. With --from-record the card is rewritten from
the figures that record already holds, without measuring again."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from explorer.core.settings import Settings
from explorer.models.checkpoints import EMBEDDED_CHECKPOINT

NAME = "model-card"


def add_parser(sub, settings: Settings) -> argparse.ArgumentParser:
    c = sub.add_parser(NAME, help="measure a trained checkpoint (train-world or train-align) and (re)write its model "
                                  "card", description=__doc__)
    c.add_argument("--checkpoint", metavar="PATH_OR_NAME",
                   help=f"a train-world or train-align weights file with its .json training record beside it, or a "
                        f"shipped checkpoint's name, e.g. world-clip-tflocal (default {EMBEDDED_CHECKPOINT}: the "
                        f"embedded model)")
    c.add_argument("--from-record", action="store_true",
                   help="rewrite the card from the figures its record holds, without measuring again: seconds "
                        "instead of minutes, e.g. after the card's wording changed (refused when the record holds "
                        "no figures; then run without it)")
    c.set_defaults(func=run)
    return c


def write_card(checkpoint: Path, objective: str, remeasure: bool = True) -> Path:
    """Write a ``train-world`` checkpoint's card (measuring it first unless ``remeasure`` is off)."""
    from explorer.training.card import write_card as write

    title = "world-clip: the embedded dual encoder" if checkpoint == EMBEDDED_CHECKPOINT else checkpoint.stem
    path = write(checkpoint, f"{title} ({objective} objective)", remeasure=remeasure)
    logging.getLogger(__name__).info("wrote %s", path)
    return path


def run(args: argparse.Namespace) -> int:
    import json

    from explorer.models.loader import resolve
    from explorer.training.card import write_align_card

    checkpoint = resolve(args.checkpoint)[0] or EMBEDDED_CHECKPOINT
    config = json.loads(checkpoint.with_suffix(".json").read_text())["config"]
    try:
        if "variant" in config:  # a train-align record
            logging.getLogger(__name__).info("wrote %s", write_align_card(checkpoint, remeasure=not args.from_record))
        else:
            write_card(checkpoint, config["objective"], remeasure=not args.from_record)
    except ValueError as error:
        raise SystemExit(str(error)) from None
    return 0
