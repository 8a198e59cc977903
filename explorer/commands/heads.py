"""Which attention heads tell the world's swaps apart, from the image embedding split into each layer's and head's
direct part (Gandelsman et al., ICLR 2024): each head's mean share of the own-minus-foil cosine margin with a 95%
interval over items beside a null (each item's heads read against another item's captions), and the group score
after mean-ablating the top k heads (ranked on the validation split) against k random heads, k = 1, 2, 4, 8."""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

from explorer import world
from explorer.commands.common import SPLIT_HELP, add_flag, command
from explorer.commands.model_args import encoder_spec, model_command
from explorer.core.settings import Settings

NAME = "heads"


def add_parser(sub, settings: Settings) -> argparse.ArgumentParser:
    q = model_command(sub, settings, NAME, "which attention heads tell a swap apart, beside a null, and the group "
                      "score after ablating the top heads against random ones", run, description=__doc__,
                      json="also write the report to this JSON file (after each split and kind)")
    add_flag(q, "--split", f"{SPLIT_HELP}; the heads are ranked for ablation on val- of each (default %(default)s)",
             default="id,heldout")
    add_flag(q, "--kinds", f"comma-separated kinds of swap items, of {', '.join(world.KINDS)} (default %(default)s)",
             default="attribute,object")
    add_flag(q, "--limit", "swap items per split and kind, and as many on its val- split (default %(default)s)",
             default=24)
    q.add_argument("--draws", type=int, default=2000, metavar="N",
                   help="derangements behind each head's null (default %(default)s)")
    return q


def run(args: argparse.Namespace) -> int:
    from explorer.eval.head_bench import heads_report
    from explorer.explain.heads import applies, why_not
    from explorer.models.loader import load_encoder

    encoder = load_encoder(encoder_spec(args.settings))
    if not applies(encoder.model):
        logging.getLogger("explorer").error("%s", why_not(encoder.model))
        return 2

    def write(report: dict) -> None:
        if args.json:
            Path(args.json).write_text(json.dumps(report, indent=2) + "\n")

    report = heads_report(encoder, args.split.split(","), args.kinds.split(","), args.limit, command(args.argv),
                          args.draws, write)
    print(json.dumps(report, indent=2))
    return 0
