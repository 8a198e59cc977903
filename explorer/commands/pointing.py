"""Where each map source looks on the world's swap scenes, judged by the objects' own masks (docs/explanations.md):
the pointing game (does a caption segment's map peak on the object it names), the share of the map's energy on that
object, and the swap probe (for a segment naming a pair absent from the image, does the map go to the object of the
right shape or of the right colour), for the explainers, the methods' evidence and two baselines, with 95% intervals;
--sanity adds the randomization check."""

from __future__ import annotations

import argparse

from explorer.commands.common import SPLIT_HELP, add_flag, command, print_report
from explorer.commands.model_args import encoder_spec, model_command
from explorer.core.settings import Settings
from explorer.eval.benchmark_registry import WORLD_LIMIT

NAME = "pointing"
SOURCES = ("the explainers rollout, grad-eclip, legrad and gradcam (those that apply to the model), the methods' "
           "evidence tflocal, sgi and powerclip, and the baselines random and center")


def add_parser(sub, settings: Settings) -> argparse.ArgumentParser:
    q = model_command(sub, settings, NAME, "where each map source looks on world scenes, judged by the objects' masks",
                      run, description=__doc__,
                      json="also write the report to this JSON file, with a CSV of each table (results, swap_probe) "
                           "and an HTML bar chart beside it")
    add_flag(q, "--split", f"{SPLIT_HELP} (default %(default)s)")
    add_flag(q, "--limit", "swap items per split and kind (default %(default)s); fewer for a quick look",
             default=WORLD_LIMIT)
    q.add_argument("--sources", metavar="NAMES",
                   help=f"comma-separated map sources: {SOURCES} (default: every one that applies to the model; one "
                        f"that cannot give a map, e.g. an untrained TFLocal, is listed under not_available)")
    q.add_argument("--sanity", type=int, default=0, metavar="N",
                   help="also run the randomization check over N pictures of the first split: each explainer's maps "
                        "as the model's blocks are randomized from the top down, correlated with the trained "
                        "model's (a map that does not change is not reading the model) (default 0: skip it)")
    return q


def run(args: argparse.Namespace) -> int:
    from explorer.explain.pointing import pointing_report
    from explorer.models.loader import load_encoder

    report = pointing_report(load_encoder(encoder_spec(args.settings)), args.split.split(","), args.limit,
                             args.sources and args.sources.split(","), args.sanity, command(args.argv))
    return print_report(report, args.json, ("results", "swap_probe"))
