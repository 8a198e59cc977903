"""Choose a model among runs on the validation split; optionally record the choice in the chosen checkpoint's record.

``python scripts/choose_on_val.py seed0=docs/results/seeds/seed0-single.json seed1=... seed2=... --incumbent seed1
--varied "--seed" --record checkpoints/world-clip.json --as seed1``: prints each run's world-single
top-1 on ``val-heldout`` (or, with ``--splits a,b``, its lowest over those) with its interval and the pick \
(``explorer/training/choice.py`` has the rule). With
``--record`` the choice is written into that training record (it must be the pick's), and ``python -m explorer
model-card`` then prints it in the card.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as python scripts/choose_on_val.py
from explorer.training.choice import candidates, choice_record  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("reports", nargs="+",
                        help="NAME=PATH of an eval --benchmark world-single report with val splits")
    parser.add_argument("--splits", default="val-heldout",
                        help="comma-separated val splits; with several, a run's score is its lowest over them "
                             "(default %(default)s)")
    parser.add_argument("--incumbent", help="the name of the run already shipped, kept unless clearly beaten")
    parser.add_argument("--varied", default="--seed", help="what differs between the runs, in the card's words")
    parser.add_argument("--note", default="", help="what else the card should say about the choice")
    parser.add_argument("--record", type=Path,
                        help="a training record (.json beside a checkpoint) to write the choice to")
    parser.add_argument("--as", dest="name", help="with --record: the name of the run that record belongs to")
    args = parser.parse_args()
    if any("=" not in r for r in args.reports):
        parser.error("name each report: NAME=PATH")
    paths = dict(r.split("=", 1) for r in args.reports)
    try:
        splits = args.splits.split(",")
        runs = candidates({name: json.loads(Path(path).read_text()) for name, path in paths.items()}, splits)
        chosen = choice_record(runs, paths, args.incumbent, args.varied, args.note, splits)
    except ValueError as error:
        parser.error(str(error))
    for run in runs:
        print(f"{run['name']}: {run['score']:.1f} [{run['ci'][0]:.1f}, {run['ci'][1]:.1f}] "
              f"on {run.get('split', splits[0])}")
    print(f"chosen: {chosen['chosen']} ({chosen['rule']})")
    if args.record is None:
        return
    if args.name != chosen["chosen"]:
        parser.error(f"the rule chose {chosen['chosen']}, not {args.name}: record the choice in that run's record")
    record = json.loads(args.record.read_text())
    record["chosen"] = chosen
    args.record.write_text(json.dumps(record, indent=2) + "\n")
    print(f"wrote the choice to {args.record}")


if __name__ == "__main__":
    main()
