"""Captions proposed from a picture, and the 2 x 2 made from image A alone, measured on the world's benchmark.

``propose``: on each split's two-object attribute-swap items (image 0), whether caption A proposed from the picture
names every object right (the same colours and shapes, as many as drawn), with a 95% bootstrap interval.
``choose``: the naming background (``propose.NAMING_BACKGROUND``) chosen on the val- splits: each object named on
its own background or on the world's grey; the rule is the best mean over the drawn splits, ties keeping its own.
``choose-recolour``: the faintest share of a fill that recolouring reaches past the segmentation's mask
(``recolour.FAINT``), chosen on the val- splits by the made picture's mean absolute difference from the rendered one.
``made``: on each split's attribute swaps, image B made from image A and the two captions (``engine.swap``), the
global cosine's and SGI's text, image and group scores on that 2 x 2 beside the benchmark's own 2 x 2 (the world's
rendered image B), their paired difference, how often the two verdicts agree, and how close the made picture is to
the rendered one (mean absolute pixel difference, 0-255; share of pixels more than 30 off).

    python scripts/swap_measures.py propose --splits drawn-white,drawn-light,drawn-grey,drawn-dark,style,id --n 200
    python scripts/swap_measures.py choose --n 100
    python scripts/swap_measures.py choose-recolour --n 100
    python scripts/swap_measures.py made --splits id,style --n 100
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from explorer import world
from explorer.core.intervals import METHOD, percent_intervals
from explorer.engine import Engine
from explorer.engine import propose as proposing
from explorer.engine.propose import propose
from explorer.engine.swap import make_image_b, two_by_two
from explorer.eval.accuracy import SWAP_SCORES
from explorer.images import recolour
from explorer.models.loader import load_encoder
from explorer.world.palette import BACKGROUND
from scripts.provenance import environment, write_report

OUT = Path("docs/results/swap")
METHODS = ("global", "sgi")
CHANCE = {"text": 25.0, "image": 25.0, "group": 100 / 6}
NAMING_BACKGROUNDS = {"own": None, "world grey": BACKGROUND}  # candidates for propose.NAMING_BACKGROUND
VAL_SPLITS = "val-drawn-white,val-drawn-light,val-drawn-grey,val-drawn-dark,val-style"
FAINT_SHARES = (0.0, 0.15, 0.3)  # candidates for recolour.FAINT
RECOLOUR_VAL_SPLITS = "val-id,val-style"


def proposal_accuracy(engine: Engine, split: str, n: int) -> dict:
    """The share of two-object pictures whose proposed caption A names every object right."""
    hits, wrong = [], []
    for item in world.swap_items(split, "attribute", n):
        truth = sorted(o.combo for o in item.images[0].objects)
        proposal = propose(engine.encoder, item.pictures()[0])
        got = sorted((o.color, o.shape) for o in proposal.objects)
        hits.append(got == truth)
        if got != truth and len(wrong) < 5:
            wrong.append({"drawn": item.captions[0], "proposed": proposal.caption_a})
    hits_arr = np.array(hits)
    return {"n": len(hits), "named_right": round(100 * float(hits_arr.mean()), 2),
            "ci": percent_intervals(hits_arr)[0], "examples_wrong": wrong}


def made_two_by_two(engine: Engine, split: str, n: int) -> dict:
    """The 2 x 2 made from image A alone against the benchmark's own, for each method."""
    rows: dict[str, list[list[bool]]] = {m: [] for m in METHODS}
    not_made, closeness = [], []
    for item in world.swap_items(split, "attribute", n):
        image_a, image_b = item.pictures()
        try:
            made, _ = make_image_b(engine, image_a, *item.captions)
        except ValueError as exc:
            not_made.append(str(exc))
            continue
        diff = np.abs(np.asarray(made, dtype=float) - np.asarray(image_b, dtype=float))
        closeness.append((diff.mean(), (diff.max(axis=-1) > 30).mean()))
        analysis_a = engine.analyze(image_a, *item.captions)
        own = two_by_two(analysis_a, engine.analyze(image_b, *item.captions))
        ours = two_by_two(analysis_a, engine.analyze(made, *item.captions))
        for m in METHODS:
            rows[m].append([getattr(o, s) if s != "group" else o.correct for o in (own[m], ours[m])
                            for s in ("text", "image", "group")])
    out: dict = {"n": n, "made": n - len(not_made), "not_made": not_made[:5],
                 "pixels_mean_abs_diff": round(float(np.mean([c[0] for c in closeness])), 3),
                 "pixels_over_30_share": round(float(np.mean([c[1] for c in closeness])), 5)}
    for m in METHODS:
        hits = np.array(rows[m], dtype=bool)  # items x (own text, image, group, made text, image, group)
        ci = percent_intervals(hits)
        paired = percent_intervals(hits[:, 3:].astype(int) - hits[:, :3].astype(int))
        out[m] = {f"{side}_{score}": {"value": round(100 * float(hits[:, k].mean()), 2), "ci": ci[k]}
                  for k, (side, score) in enumerate((s, sc) for s in ("benchmark", "made") for sc in SWAP_SCORES)}
        out[m].update({f"difference_{score}": {"value": round(100 * float((hits[:, 3 + k].astype(int)
                                                                           - hits[:, k]).mean()), 2), "ci": paired[k]}
                       for k, score in enumerate(SWAP_SCORES)})
        out[m]["group_verdicts_agree"] = round(100 * float((hits[:, 2] == hits[:, 5]).mean()), 2)
    return out


def naming_background_choice(engine: Engine, splits: list[str], n: int) -> dict:
    """Proposal accuracy on each val- split under each naming background, and the one the rule picks."""
    out: dict = {}
    for name, background in NAMING_BACKGROUNDS.items():
        proposing.NAMING_BACKGROUND = background
        out[name] = {split: proposal_accuracy(engine, split, n) for split in splits}
        drawn = [out[name][s]["named_right"] for s in splits if "drawn" in s]
        out[name]["mean_drawn"] = round(float(np.mean(drawn)), 2)
    out["chosen"] = max(NAMING_BACKGROUNDS, key=lambda k: (out[k]["mean_drawn"], k == "own"))
    out["rule"] = "the best mean named-right over the val- drawn splits; a tie keeps each object's own background"
    return out


def faint_share_choice(engine: Engine, splits: list[str], n: int) -> dict:
    """The made 2 x 2 on each val- split under each candidate faint share, and the one whose made pictures lie
    closest to the rendered ones (mean absolute pixel difference over the splits; a tie keeps the smaller share)."""
    out: dict = {}
    for faint in FAINT_SHARES:
        recolour.FAINT = faint
        out[str(faint)] = {split: made_two_by_two(engine, split, n) for split in splits}
        out[str(faint)]["mean_abs_diff"] = round(float(np.mean([out[str(faint)][s]["pixels_mean_abs_diff"]
                                                                for s in splits])), 4)
    out["chosen"] = min((str(f) for f in FAINT_SHARES), key=lambda k: (out[k]["mean_abs_diff"], float(k)))
    out["rule"] = "the smallest mean absolute pixel difference from the rendered image B; a tie keeps the smaller"
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("propose", "choose", "choose-recolour", "made"))
    parser.add_argument("--splits", default=None,
                        help=f"default drawn-*, style and id; choose: {VAL_SPLITS}; "
                             f"choose-recolour: {RECOLOUR_VAL_SPLITS}")
    parser.add_argument("--n", type=int, default=200, help="items per split")
    parser.add_argument("--out", type=Path, default=None, help="default docs/results/swap/WHAT[-val].json")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    start = time.perf_counter()
    defaults = {"choose": VAL_SPLITS, "choose-recolour": RECOLOUR_VAL_SPLITS}
    args.splits = args.splits or defaults.get(args.what, "drawn-white,drawn-light,drawn-grey,drawn-dark,style,id")
    splits = args.splits.split(",")
    engine = Engine(load_encoder(), list(METHODS))
    if args.what == "choose":
        report: dict = naming_background_choice(engine, splits, args.n)
    elif args.what == "choose-recolour":
        report = faint_share_choice(engine, splits, args.n)
    else:
        measure = proposal_accuracy if args.what == "propose" else made_two_by_two
        report = {split: measure(engine, split, args.n) for split in splits}
    report["chance"] = {"propose": round(100 * 2 / 32 ** 2, 2), **CHANCE}  # two names guessed among 32
    report["interval"] = METHOD
    report["command"] = f"python scripts/swap_measures.py {args.what} --splits {args.splits} --n {args.n}"
    report["environment"] = environment(start, cpu="2 cores of an Intel Xeon with AMX and AVX512-BF16")
    val = "-val" if not args.what.startswith("choose") and all(s.startswith(world.VAL_PREFIX) for s in splits) else ""
    write_report(report, args.out or OUT / f"{args.what}{val}.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
