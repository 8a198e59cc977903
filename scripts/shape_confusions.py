"""Which single objects a checkpoint names wrongly on world splits, and whether it misses their shape or their colour.

``python scripts/shape_confusions.py --checkpoint runs/varied/world-clip-v0.5-s3000.safetensors --split
val-style,val-drawn-white --limit 500 --json docs/results/drawings/warm-v0.5-s3000-val-confusions.json`` scores the
same items as ``eval --benchmark world-single --methods global`` (top-1 by the global cosine among all objects'
captions, through the evaluation's one scoring loop) and counts each wrong answer by its (true, chosen) caption pair.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as python scripts/shape_confusions.py
from explorer.eval.accuracy import item_outcomes  # noqa: E402
from explorer.methods import get_method  # noqa: E402
from explorer.models.encoders import DualEncoder  # noqa: E402
from explorer.world.benchmark import single_items  # noqa: E402


def confusions(encoder: DualEncoder, split: str, limit: int) -> dict:
    """Top-1 of ``limit`` single-object items of ``split``, and its wrong answers by kind and by caption pair."""
    items = single_items(split, limit)
    captions = items[0].captions
    found = [o["global"] for o in item_outcomes([get_method("global", encoder)], items, "world-single")]
    wrong = Counter((captions[it.right[0]], captions[o.picked[0]]) for it, o in zip(items, found) if not o.correct)
    shape = sum(n for (true, said), n in wrong.items() if true.split()[1] == said.split()[1])
    colour = sum(n for (true, said), n in wrong.items() if true.split()[-1] == said.split()[-1])
    return {"n": len(items), "top1": round(100 * (1 - sum(wrong.values()) / len(items)), 1),
            "wrong_shape_only": shape, "wrong_colour_only": colour,
            "pairs": [{"true": t, "chosen": s, "n": n} for (t, s), n in wrong.most_common()]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--split", default="val-style")
    parser.add_argument("--limit", type=int, default=500)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    encoder = DualEncoder(checkpoint=args.checkpoint, device="cpu")
    results = {split: confusions(encoder, split, args.limit) for split in args.split.split(",")}
    for split, r in results.items():
        top = ", ".join(f"{p['true']} -> {p['chosen']} ({p['n']})" for p in r["pairs"][:4])
        print(f"{split}: top-1 {r['top1']}; wrong shape {r['wrong_shape_only']}, "
              f"wrong colour {r['wrong_colour_only']}; {top}")
    if args.json:
        args.json.write_text(json.dumps({"command": " ".join(["python scripts/shape_confusions.py", *sys.argv[1:]]),
                                         "results": results}, indent=1))


if __name__ == "__main__":
    main()
