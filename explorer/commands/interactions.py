"""Which object each attribute-noun span binds to, read from the second-order interactions of the cosine (exCLIP's
token x patch interactions, docs/explanations.md) on the world's swap items, judged by the objects' masks: for the
true caption, the share of spans whose named object carries their interaction; for the swapped caption, the share
whose colour's object wins over their shape's; each per split and kind with a 95% interval, beside a model with no
binding (the same architecture with random weights) at chance. A method-independent reading, as eval's are."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from explorer import world
from explorer.commands.common import SPLIT_HELP, add_flag, command
from explorer.commands.model_args import encoder_spec, model_command
from explorer.core.settings import Settings

NAME = "interactions"


def add_parser(sub, settings: Settings) -> argparse.ArgumentParser:
    q = model_command(sub, settings, NAME, "which object each colour-shape span binds to, from token x patch "
                      "interactions, beside a no-binding model", run, description=__doc__,
                      json="also write the report to this JSON file (after each split and kind)")
    add_flag(q, "--split", f"{SPLIT_HELP} (default %(default)s)", default="id")
    add_flag(q, "--kinds", f"comma-separated kinds of swap items, of {', '.join(world.KINDS)}: attribute and object "
                           f"swaps read both figures, size and relation only the right object (default %(default)s)",
             default="attribute")
    add_flag(q, "--limit", "swap items per split and kind (default %(default)s: minutes on a CPU, an item and its "
                           "null 10 to 40 s on 2 cores; 24 and more for intervals that decide)", default=12)
    q.add_argument("--steps", type=int, default=10, metavar="N",
                   help="interpolation steps of the integrated Jacobians (default %(default)s, the authors')")
    return q


def run(args: argparse.Namespace) -> int:
    from explorer.explain.interaction_binding import binding_report
    from explorer.models.loader import load_encoder

    def write(report: dict) -> None:
        if args.json:
            Path(args.json).write_text(json.dumps(report, indent=2) + "\n")

    report = binding_report(load_encoder(encoder_spec(args.settings)), args.split.split(","), args.kinds.split(","),
                            args.limit, steps=args.steps, command=command(args.argv), write=write)
    print(json.dumps(report, indent=2))
    return 0
