"""The binding paper's coverage sweep (docs/binding.md): one world encoder trained from scratch per cell (an object
space at a coverage) at the shipped recipe's budget, each read for held-out recognition and binding, then held-out
top-1 correlated over the cells with the product probe's (multiplicative) fit. A finished cell's record is kept in
--records and never trained again; an interrupted cell resumes from --runs. The summary goes to --out."""

from __future__ import annotations

import argparse

from explorer.commands.common import add_flag
from explorer.core.settings import Settings
from explorer.training.config import TrainConfig

NAME = "binding-sweep"


def add_parser(sub, settings: Settings) -> argparse.ArgumentParser:
    w = sub.add_parser(NAME, help="the binding paper's coverage sweep: world encoders over object spaces and "
                                  "coverages; held-out recognition against the multiplicative fit",
                       description=__doc__)
    w.add_argument("--spaces", default="8x4,16x12", metavar="CxS,...",
                   help="comma-separated object spaces, COLOURSxSHAPES: 8x4 is the benchmark's, a larger one adds "
                        "training-only colours and shapes (default %(default)s)")
    w.add_argument("--coverages", default="0.25,0.4,0.55,0.7,0.85", metavar="F,...",
                   help="comma-separated fractions of each space's objects seen in training, one cell per space and "
                        "coverage (default %(default)s)")
    w.add_argument("--seed", type=int, default=0,
                   help="seed of every cell's weights and batches; another seed gives a second sample of each cell, "
                        "recorded beside the first (default %(default)s)")
    w.add_argument("--steps", type=int, metavar="N",
                   help="optimizer steps per cell (default: the shipped recipe's, from the embedded model's record); "
                        "another budget needs --records and --out of its own (the summary refuses mixed budgets)")
    w.add_argument("--batch-size", type=int, metavar="N",
                   help="scenes per step (default: the shipped recipe's); another budget, as with --steps")
    w.add_argument("--precision", choices=("bf16", "fp32"),
                   help="the towers' precision in training (default: the shipped recipe's, bf16). A CPU without "
                        "native bf16 (AMX or AVX512-BF16) emulates bf16 about 13x slower than fp32, so fp32 is the "
                        "one to use there; it is a budget of its own, so give its cells --records and --out folders "
                        "of their own")
    w.add_argument("--items", type=int, default=500, metavar="N",
                   help="held-out single-object images each cell's recognition is read on (default %(default)s)")
    add_flag(w, "--device", "cpu or cuda: where each cell trains (default: cuda when present, else cpu); minutes a "
                            "cell on a GPU, 1.3 to 1.9 hours on a CPU with native bf16")
    add_flag(w, "--workers", "processes that draw each cell's training scenes ahead of the model (default 0: drawn in "
                             "turn with each step; the batches are the same either way); worth 2 or more on a GPU")
    w.add_argument("--threads", type=int, default=TrainConfig.threads, metavar="N",
                   help="torch threads per cell (default %(default)s); two sweeps of one thread each, e.g. one per "
                        "space, share 2 cores")
    w.add_argument("--records", default="docs/results/coverage-sweep", metavar="DIR",
                   help="folder of one JSON record per finished cell: a recorded cell is not trained again, and the "
                        "summary reads every record here (default %(default)s)")
    w.add_argument("--runs", default="runs/coverage-sweep", metavar="DIR",
                   help="folder of each cell's weights and resumable training state (default %(default)s)")
    w.add_argument("--summary-only", action="store_true",
                   help="train nothing: summarize the cells recorded in --records into --out, e.g. once sweeps run "
                        "side by side have finished")
    add_flag(w, "--out", "folder of the summary: coverage-sweep.csv, .json (with the command) and .html, the plot of "
                         "held-out top-1 against the product probe's fit (default %(default)s)", default="docs",
             metavar="DIR")
    w.set_defaults(func=run)
    return w


def run(args: argparse.Namespace) -> int:
    import json
    import sys
    from pathlib import Path

    from explorer.world.space import ObjectSpace

    try:  # a bad space is refused before torch is loaded
        spaces = [ObjectSpace.parse(s).name for s in args.spaces.split(",")]
        coverages = [float(c) for c in args.coverages.split(",")]
    except ValueError as error:
        raise SystemExit(f"binding-sweep: {error}") from None
    from tqdm import tqdm

    from explorer.models.encoders import default_device
    from explorer.training.sweep import Cell, cell_budget, run_cell, summarize, write
    budget = cell_budget(args.steps, args.batch_size, args.precision)
    records, runs = Path(args.records), Path(args.runs)
    cells = [Cell(s, c, args.seed) for s in spaces for c in coverages]
    if not args.summary_only:
        for cell in tqdm(cells, desc="binding-sweep", unit="cell"):
            run_cell(cell, budget, runs, records, args.device or default_device(), args.items, args.workers,
                     args.threads)
    try:
        summary = write(summarize(records), Path(args.out), "python -m explorer " + " ".join(sys.argv[1:]))
    except ValueError as error:
        raise SystemExit(f"binding-sweep: {error}") from None
    print(json.dumps({k: summary[k] for k in ("correlation", "by_space", "by_probe")}, indent=2))
    return 0
