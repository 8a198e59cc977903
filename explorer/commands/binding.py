"""Binding geometry of a model (the binding paper, "How embedding models bind"; docs/binding.md): the image and caption
embeddings of every two-object world scene over a colours x shapes grid, read by additive fits, counterfactual edits,
linear probes, slot-MLP, product and additive probes of held-out objects, and swaps told apart on scenes no probe
saw, each figure beside its null (the scene table with each swap pair's two scenes exchanged at random, which an
encoder without binding cannot tell from the table itself, a Monte-Carlo p; swaps told apart by an exact sign test over
independent units), with its p and its Holm-adjusted p over every tested reading; a verdict near its threshold is
checked on other render seeds and reads "unstable" where they differ (docs/binding.md: the time it takes on the
embedded model)."""

from __future__ import annotations

import argparse
import shlex

from explorer.commands.common import add_switch, command, print_report
from explorer.commands.model_args import encoder_spec, model_command
from explorer.core.settings import Settings
from explorer.readings import DRAWS, RENDERS

NAME = "binding"


def add_parser(sub, settings: Settings) -> argparse.ArgumentParser:
    g = model_command(sub, settings, NAME, "binding-geometry analyzes of a model on two-object world scenes", run,
                      description=__doc__, json="also write the figures, each with its null, to this JSON file")
    g.add_argument("--colors", type=int, default=8, metavar="N",
                   help="the grid's colours, the first N of the world's palette of 8 (default %(default)s)")
    g.add_argument("--shapes", type=int, default=3, metavar="N",
                   help="the grid's shapes, the first N of the world's 4 (default %(default)s: 8 x 3 = the 24-object "
                        "grid of the binding paper)")
    g.add_argument("--null-draws", type=int, default=DRAWS, metavar="N",
                   help="flipped scene tables (each swap pair's two scenes exchanged at random) measured beside each "
                        "table reading (default %(default)s): its p is the share at or above it, (k + 1) / (N + 1), "
                        "so N must exceed the number of readings / 0.05 for any to pass Holm's correction; the "
                        "probes' retrievals stop drawing once 10 are at or above. Swaps told apart need none: their "
                        "sign test is exact")
    g.add_argument("--renders", type=int, default=RENDERS, metavar="N",
                   help="new drawings of each swap pair for the swaps told apart, each pair's verdict the share of "
                        "its renders told apart (default %(default)s; 0: the scene table's own scenes, once each)")
    g.add_argument("--render-seed", type=int, default=0, metavar="S",
                   help="which drawing of the scenes and swap renders (places, caption orders; default %(default)s)")
    add_switch(g, "--no-check",
               "skip measuring the verdicts near their threshold again on the other render seeds (0, 1, 2); "
               "by default a reading whose verdict differs there reads \"unstable\", with the seeds' spread")
    add_switch(g, "--controls",
               "read the controls instead of the model (explorer/readings/controls.py: encoders that cannot "
               "bind, the ground truth, and the noisy positive control at each noise level, its power "
               "curve), each written to --json as it finishes")
    g.add_argument("--control", metavar="TEXT",
                   help="with --controls: run only the controls whose label holds TEXT (e.g. \"noise 2\") and merge "
                        "them into the --json record already there (same grid, draws and renders)")
    g.add_argument("--widths", default="16,64,256", metavar="W,W,...",
                   help="comma-separated probe widths, each probe's chosen on validation scenes (default "
                        "%(default)s)")
    return g


def run(args: argparse.Namespace) -> int:
    from explorer.models.loader import load_encoder
    from explorer.readings import binding_report

    widths = tuple(int(w) for w in args.widths.split(","))
    if args.controls:
        import json
        from pathlib import Path

        from explorer.readings import binding_controls

        def write(report: dict) -> None:
            if args.json:
                Path(args.json).write_text(json.dumps(report, indent=1) + "\n")

        try:
            previous = json.loads(Path(args.json).read_text()) if args.control and args.json and \
                Path(args.json).exists() else None
        except ValueError as error:
            raise SystemExit(f"{args.json}: not a controls record to merge into ({error})") from None
        try:
            report = binding_controls.run(command([shlex.quote(a) for a in args.argv]), write, args.colors,
                                          args.shapes, args.null_draws, args.renders, widths, args.control, previous)
        except binding_controls.Unmergeable as error:
            raise SystemExit(f"binding --controls --json {args.json}: {error}") from None
        print(json.dumps(report["power"], indent=2))
        return 0

    report = binding_report.report(load_encoder(encoder_spec(args.settings)), command(args.argv),
                                   args.colors, args.shapes, args.null_draws, args.renders,
                                   widths, args.render_seed, not args.no_check)
    return print_report(report, args.json)
