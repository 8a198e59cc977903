"""Two runs of ``eval --json`` compared, to show a restructure leaves every score as it was.

    python -m explorer eval --benchmark world --methods global,sgi,tflocal,powerclip --split id,heldout,shift,style \
        --limit 24 --json BEFORE/world.json           # once on each tree, into its own folder
    python scripts/same_eval.py BEFORE/world.json AFTER/world.json

Compares the reports' results (every method, split and kind: text, image and group scores with their intervals) and,
item by item, the shards' outcomes (each method's verdicts, margin to 6 decimals and picks) and the items' content
keys, a method's former name (``RENAMED``) read as its name now. A run with a smaller ``--limit`` is compared item by
item on its items (the first of each split and kind), which the larger run holds too. Exit status 0 where all agree.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

RENAMED = {"powerset": "powerclip"}  # a method's former name -> its name now


def renamed(by_method: dict) -> dict:
    return {RENAMED.get(name, name): value for name, value in by_method.items()}


def outcomes(report: Path) -> dict[tuple[str, int], tuple[str, dict]]:
    """Each item's content key and outcomes (by its task and index) in the report's shards."""
    out = {}
    for shard in sorted(Path(f"{report}.shards").glob("*.jsonl")):
        for line in shard.read_text().splitlines():
            row = json.loads(line)
            if "outcome" in row:
                out[(row["task"], row["index"])] = (row["key"], renamed(row["outcome"]["outcomes"]))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args()
    a, b = (json.loads(p.read_text()) for p in (args.before, args.after))
    whole = a["limit"] == b["limit"]  # the same items: their results are compared too
    same_results = not whole or renamed(a["results"]) == renamed(b["results"])
    items_a, items_b = outcomes(args.before), outcomes(args.after)
    differ = [k for k in items_b if items_a.get(k) != items_b[k]]
    cells = sum(len(kinds) for splits in b["results"].values() for kinds in splits.values())
    said = ("the same" if same_results else "NOT the same") if whole else f"not compared (limit {a['limit']} and "
    said += "" if whole else f"{b['limit']})"
    print(f"results: {len(b['results'])} methods, {cells} (method, split, kind) cells, {said}; items: "
          f"{len(items_a)} before, {len(items_b)} after, {len(differ)} of these differ")
    return 0 if same_results and not differ and items_b and (not whole or items_a.keys() == items_b.keys()) else 1


if __name__ == "__main__":
    sys.exit(main())
