"""Write into a training record where the seed its lineage started from stands among its recipe's seeds.

``python scripts/record_seeds.py RECORD SEED=SWAPS_REPORT,SINGLE_REPORT ...``: for each seed of the recipe, its
``eval --benchmark world`` report (the global cosine's attribute group score) and its ``world-single`` report (the
``val-heldout`` top-1 the choice of seed read). The figures go into the lineage origin's ``seeds``
(``explorer/models/seed_standing.py``), which the model card and the page read; rewrite the card with
``python -m explorer model-card --from-record``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from explorer.models import seed_standing  # noqa: E402


def parse(pairs: list[str]) -> dict[str, tuple[Path, Path]]:
    """``["1=a.json,b.json"]`` -> ``{"1": (Path("a.json"), Path("b.json"))}``, with a clear message otherwise."""
    out = {}
    for pair in pairs:
        seed, sep, paths = pair.partition("=")
        reports = paths.split(",")
        if not (sep and seed.isdigit() and len(reports) == 2):
            raise SystemExit(f"each seed is SEED=SWAPS_REPORT,SINGLE_REPORT, got {pair!r}")
        out[seed] = (Path(reports[0]), Path(reports[1]))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("record", type=Path)
    parser.add_argument("seeds", nargs="+", help="SEED=SWAPS_REPORT,SINGLE_REPORT for each seed of the recipe")
    args = parser.parse_args(argv)
    record = json.loads(args.record.read_text())
    if "lineage" not in record:
        raise SystemExit(f"{args.record} has no lineage: write it first with scripts/record_lineage.py")
    found = parse(args.seeds)
    kept = str(record["lineage"][0]["config"]["seed"])
    if kept not in found:
        raise SystemExit(f"the lineage starts from seed {kept}, which is not among the seeds given "
                         f"({', '.join(found)})")
    record["lineage"][0]["seeds"] = seed_standing.standing(found)
    args.record.write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
