"""Choose the ``whole`` view's content thresholds on the validation looks, never on the splits reported.

For each candidate (``CONTENT_SHARE``, ``SMALL_CONTENT``) it reads, with the embedded model's global cosine, shape and
colour naming (``world-naming``: chance 50%) on ``val-wide`` and ``val-small``, and counts the world's own validation
pictures the candidate would change (two-object swaps of every kind, and single objects): the choice keeps the world's
two-object scenes as they are, then takes the best mean naming, the smaller change on a tie.

    python scripts/choose_view.py --limit 200 --json docs/results/views/choice.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as python scripts/choose_view.py
from explorer import world  # noqa: E402
from explorer.core.intervals import percent_intervals  # noqa: E402
from explorer.images.fit import fit_of  # noqa: E402
from explorer.models.encoders import DualEncoder  # noqa: E402

SHARES = (0.25, 0.35, 0.45)
SMALLS = (0.6, 0.7)


def naming(encoder: DualEncoder, items, share: float, small: float) -> list[bool]:
    """Whether the global cosine tells each naming item's own caption, its picture read by the candidate view."""
    pictures = [fit_of(p, "whole", small, share).picture(p) for it in items for p in it.pictures(encoder.image_size)]
    images = encoder.embed_images(pictures)
    found = []
    for it, image in zip(items, images):
        texts = encoder.embed_texts(list(it.captions))
        found.append(int(torch.argmax(texts @ image)) == it.right[0])
    return found


def changed(items, size: int, share: float, small: float) -> int:
    """How many of the items' pictures the candidate view does not leave as they are."""
    return sum(fit_of(p, "whole", small, share).changes for it in items for p in it.pictures(size))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=200, help="items per split and naming kind")
    parser.add_argument("--world-limit", type=int, default=100, help="world validation items per kind")
    parser.add_argument("--json", required=True)
    args = parser.parse_args()
    start = time.perf_counter()
    encoder = DualEncoder()
    splits = ["val-wide", "val-small"]
    items = {(s, k): world.naming_items(s, k, args.limit) for s in splits for k in world.NAMING_KINDS}
    swaps = [it for k in world.KINDS for it in world.swap_items("val-id", k, args.world_limit)]
    singles = world.single_items("val-id", args.world_limit * 4)
    rows = []
    for share, small in itertools.product(SHARES, SMALLS):
        row: dict = {"share": share, "small": small, "naming": {}}
        for (split, kind), its in items.items():
            found = naming(encoder, its, share, small)
            (low, high), = percent_intervals(np.array(found, dtype=float))
            row["naming"][f"{split}/{kind}"] = {"value": round(100 * float(np.mean(found)), 2),
                                               "interval": [low, high], "n": len(found)}
        row["mean"] = round(float(np.mean([v["value"] for v in row["naming"].values()])), 2)
        row["world_two_objects_changed"] = changed(swaps, encoder.image_size, share, small)
        row["world_single_changed"] = changed(singles, encoder.image_size, share, small)
        print(json.dumps(row))
        rows.append(row)
    kept = [r for r in rows if r["world_two_objects_changed"] == 0]
    best = max(kept, key=lambda r: (r["mean"], -r["world_single_changed"], -r["small"]))
    out = {"command": "python scripts/choose_view.py --limit %d --json %s" % (args.limit, args.json),
           "model": encoder.label, "rule": "world two-object scenes unchanged; then best mean naming; then fewest "
                                          "world single objects changed; then the smaller threshold",
           "candidates": rows, "chosen": {"share": best["share"], "small": best["small"]},
           "seconds": round(time.perf_counter() - start, 1),
           "machine": "2 cores of an AMD EPYC with AVX512-BF16"}
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(out, indent=1))
    print("chosen", out["chosen"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
