"""Where held-out objects are lost (docs/recognition.md): a model's top-1 on single objects training never showed,
read by caption sets (among every object's caption, among the held-out objects' only, shape-only captions), on the
same pictures in black and white, and by linear probes of shape and colour fitted on seen objects. The readings are
printed as JSON."""

from __future__ import annotations

import argparse

from explorer.commands.common import add_flag, print_report
from explorer.commands.model_args import encoder_spec, model_command
from explorer.core.settings import Settings

NAME = "recognition"


def add_parser(sub, settings: Settings) -> argparse.ArgumentParser:
    r = model_command(sub, settings, NAME, "where held-out objects are lost: readings by caption sets, "
                      "black-and-white pictures and linear probes (docs/recognition.md)", run, description=__doc__,
                      json="also write the readings to this JSON file")
    add_flag(r, "--limit", "held-out single-object images read, of the heldout test split (default %(default)s)",
             default=500)
    r.add_argument("--probe-limit", type=int, default=600, metavar="N",
                   help="seen single-object images, of the id test split, that the linear probes are fitted on "
                        "(default %(default)s)")
    return r


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from explorer.eval.recognition import STAGES, readings
    from explorer.models.loader import load_encoder

    encoder = load_encoder(encoder_spec(args.settings))
    with tqdm(total=STAGES, desc="recognition", unit="stage") as bar:
        found = readings(encoder, args.limit, args.probe_limit, tick=bar.update)
    return print_report({"model": encoder.label, "readings": found}, args.json)
