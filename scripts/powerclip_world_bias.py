"""Why the page's PowerCLIP row scores below chance on the world's swap items: its four scores per item, decomposed.

For an item with captions C0, C1, images I0, I1 and scores s_ij = s(C_i, I_j):

    d       = (s00 - s10 + s11 - s01) / 2   the binding signal: how far the right pairings beat the swapped ones
    b_text  = (s10 + s11 - s00 - s01) / 2   caption 1's advantage over caption 0, the same on both images
    b_image = (s01 + s11 - s00 - s10) / 2   image 1's advantage over image 0, the same with both captions

Then s00 - s10 = d - b_text and s11 - s01 = d + b_text, so the text score is right exactly when d > |b_text|, the
image score when d > |b_image|, the group when both. The chance levels (text and image 25, group 16.7) hold when
the four scores are exchangeable; a method whose scores carry an offset that follows the caption (or the image)
and outweighs its signal scores below them without preferring the wrong caption: with d centred on 0 and |b_text|
larger than |d|, the text score goes to 0. ``d > 0`` (the right pairing preferred, whatever the offsets) is 50% at
chance for any method.

Variants, on the same items, the same patch tokens and (unless named) the method's own segments:
- ``powerset``: the method as the page runs it (each tree node's best subset of the 10 largest regions, mean over
  nodes); checked against the method's own scores;
- ``powerset, world regions``: the same over the world's own object masks (``--set powerclip.regions=world``);
- ``full set``: each node scored on the union of those regions (no maximum over subsets);
- ``best single region``: the maximum over single regions only;
- ``root only`` / ``phrases only``: the maximum over subsets, the caption's root node alone or its other nodes alone;
- ``global``: the model's global cosine.

And where each phrase of the right caption finds its best subset (attribute items, the method's segments): the share
of phrases whose best subset lies mostly (more than half of its patches) on the object the phrase names, mostly on
the other object, or elsewhere; and the phrase's cosine with its own object's patches (the object's mask on the patch
grid) against the best subset's.

    python scripts/powerclip_world_bias.py --splits val-id,val-heldout,val-shift --limit 24 --json OUT

Only val splits are read by default (nothing here is chosen, but nothing is tuned on test either).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from explorer import world
from explorer.core.intervals import percent_intervals  # noqa: E402
from explorer.images.regions import patch_mask, visible_box  # noqa: E402
from explorer.language.text import parse_many  # noqa: E402
from explorer.language.tree import parse_tree  # noqa: E402
from explorer.methods.powerclip.alignment import subset_masks, subset_similarities  # noqa: E402
from explorer.methods.powerclip.method import PowerCLIP  # noqa: E402
from explorer.models import checkpoints  # noqa: E402
from explorer.models.encoders import DualEncoder  # noqa: E402

VARIANTS = ("powerset", "powerset, world regions", "full set", "best single region", "root only", "phrases only",
            "global")


def node_scores(method: PowerCLIP, image, caption: str) -> dict:
    """Per-node cosines of one caption on one image: every subset of the 10 largest regions, and the regions."""
    enc = method.encoder
    feats = enc.encode_image(image)
    regions, masks = method.region_masks(image, feats.grid)
    m = min(len(regions), method.exact_limit)
    tree = parse_tree(caption)
    texts = torch.stack([t.embedding for t in enc.encode_texts([n.text for n in tree], companions=False)])
    sims = subset_similarities(feats.patches, masks[:m], texts).numpy()  # (2^m - 1, K)
    return {"tree": tree, "sims": sims, "subsets": subset_masks(m).numpy(), "masks": masks[:m].numpy(),
            "grid": feats.grid}


def variant_scores(found: dict) -> dict[str, float]:
    sims, subsets = found["sims"], found["subsets"]
    best = sims.max(0)
    phrases = best[1:] if len(best) > 1 else best
    return {"powerset": float(best.mean()), "full set": float(sims[subsets.all(1)].mean()),
            "best single region": float(sims[subsets.sum(1) == 1].max(0).mean()),
            "root only": float(best[0]), "phrases only": float(phrases.mean())}


def decompose(s: np.ndarray) -> dict[str, float]:
    """d, b_text, b_image of a (captions, images) score matrix, and its verdicts."""
    d = (s[0, 0] - s[1, 0] + s[1, 1] - s[0, 1]) / 2
    b_text = (s[1, 0] + s[1, 1] - s[0, 0] - s[0, 1]) / 2
    b_image = (s[0, 1] + s[1, 1] - s[0, 0] - s[1, 0]) / 2
    text, image = bool(s[0, 0] > s[1, 0] and s[1, 1] > s[0, 1]), bool(s[0, 0] > s[0, 1] and s[1, 1] > s[1, 0])
    return {"d": d, "b_text": b_text, "b_image": b_image, "text": text, "image": image, "group": text and image}


def summary(rows: list[dict]) -> dict:
    hits = np.array([[r["text"], r["image"], r["group"], r["d"] > 0, abs(r["b_text"]) > abs(r["d"])] for r in rows])
    ci = percent_intervals(hits)
    names = ("text", "image", "group", "d>0", "|b_text|>|d|")
    out = {n: {"percent": round(100 * float(hits[:, i].mean()), 1), "ci": ci[i]} for i, n in enumerate(names)}
    for key in ("d", "b_text", "b_image"):
        out[f"mean |{key}|"] = round(float(np.mean([abs(r[key]) for r in rows])), 4)
    out["mean d"] = round(float(np.mean([r["d"] for r in rows])), 4)
    out["n"] = len(rows)
    return out


def locality(item, method: PowerCLIP, found: dict) -> list[dict]:
    """Where each phrase of the right caption on image 0 finds its best subset, and its own object's cosine."""
    scene, image_size = item.images[0], method.encoder.image_size
    obj_masks = scene.masks(image_size)
    box = visible_box(image_size, image_size, method.encoder.preprocess)
    on_grid = [patch_mask(m, found["grid"], box) for m in obj_masks]
    phrases = {o.phrase(): i for i, o in enumerate(scene.objects)}
    out = []
    for k, node in enumerate(found["tree"]):
        if node.text not in phrases:
            continue
        named = phrases[node.text]
        best = found["subsets"][found["sims"][:, k].argmax()]
        union = found["masks"][best].any(0)
        share = [float((union & g).sum() / max(union.sum(), 1)) for g in on_grid]
        where = "named" if share[named] > 0.5 else "other" if share[1 - named] > 0.5 else "elsewhere"
        own = _cosine_on(found, on_grid[named], k, method, item)
        out.append({"phrase": node.text, "where": where, "best": float(found["sims"][:, k].max()), "own": own})
    return out


def _cosine_on(found: dict, grid_mask: np.ndarray, k: int, method: PowerCLIP, item) -> float:
    enc = method.encoder
    feats = enc.encode_image(item.pictures(enc.image_size)[0])
    text = enc.encode_texts([found["tree"][k].text], companions=False)[0].embedding
    pooled = feats.patches[torch.from_numpy(grid_mask)].sum(0)
    return float(torch.nn.functional.cosine_similarity(pooled, text, dim=0))


def markdown(report: dict, variants=VARIANTS) -> str:
    """The record's table, as docs/powerclip-world.md shows it: one row per split and variant."""
    lines = ["| split | scores | text | image | group [95%] | right pairing preferred, d > 0 [95%] | mean abs d | "
             "mean abs b_text | mean abs b_image |", "|---|---|---|---|---|---|---|---|---|"]
    for split, found in report["splits"].items():
        for v in variants:
            s, g, d = found[v], found[v]["group"], found[v]["d>0"]
            lines.append(f"| {split} | {v} | {s['text']['percent']} | {s['image']['percent']} | {g['percent']} "
                         f"[{g['ci'][0]}, {g['ci'][1]}] | {d['percent']} [{d['ci'][0]}, {d['ci'][1]}] | "
                         f"{s['mean |d|']:.4f} | {s['mean |b_text|']:.4f} | {s['mean |b_image|']:.4f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--splits", default="val-id,val-heldout,val-shift")
    parser.add_argument("--limit", type=int, default=24, help="items per kind and split")
    parser.add_argument("--kinds", default=",".join(world.KINDS))
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    start = time.perf_counter()
    encoder = DualEncoder()
    segments, objects = PowerCLIP(encoder), PowerCLIP(encoder, regions="world")
    weights = checkpoints.get("world-clip").path
    report = {"command": "python scripts/powerclip_world_bias.py " + " ".join(argv or sys.argv[1:]),
              "model": encoder.label, "weights_sha256": hashlib.sha256(weights.read_bytes()).hexdigest()[:16],
              "splits": {}, "checked_against_method": 0}
    places: list[dict] = []
    for split in args.splits.split(","):
        rows: dict[str, list[dict]] = {v: [] for v in VARIANTS}
        for kind in args.kinds.split(","):
            for item in world.swap_items(split, kind, args.limit):
                images = item.pictures(encoder.image_size)
                parse_many(list(item.captions))
                s = {v: np.zeros((2, 2)) for v in VARIANTS}
                for j, image in enumerate(images):
                    g = encoder.encode_image(image).embedding
                    for i, caption in enumerate(item.captions):
                        found = node_scores(segments, image, caption)
                        for name, value in variant_scores(found).items():
                            s[name][i, j] = value
                        on_objects = node_scores(objects, image, caption)
                        s["powerset, world regions"][i, j] = variant_scores(on_objects)["powerset"]
                        s["global"][i, j] = float(g @ encoder.encode_texts([caption], companions=False)[0].embedding)
                        if kind == "attribute" and i == 0 and j == 0:
                            places += [p | {"split": split} for p in locality(item, segments, found)]
                method_s = np.array([[sc.value for sc in segments.score(im, item.captions)] for im in images]).T
                assert np.allclose(method_s, s["powerset"], atol=1e-5), (method_s, s["powerset"])
                report["checked_against_method"] += 1
                for v in VARIANTS:
                    rows[v].append(decompose(s[v]) | {"kind": kind})
        report["splits"][split] = {v: summary(r) for v, r in rows.items()}
        report["splits"][split]["attribute"] = {v: summary([x for x in r if x["kind"] == "attribute"])
                                                for v, r in rows.items()}
    where = [p["where"] for p in places]
    report["phrases"] = {"n": len(places), **{w: round(100 * where.count(w) / max(len(where), 1), 1)
                                              for w in ("named", "other", "elsewhere")},
                         "mean best": round(float(np.mean([p["best"] for p in places])), 3),
                         "mean own object": round(float(np.mean([p["own"] for p in places])), 3),
                         "own object above best subset": round(100 * float(np.mean([p["own"] >= p["best"] - 1e-6
                                                                                    for p in places])), 1)}
    report["seconds"] = round(time.perf_counter() - start, 1)
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
