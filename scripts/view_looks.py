"""The view of a picture on the looks it is made for: chosen on the validation looks, reported on the test looks.

``choose`` reads, on ``val-wide`` and ``val-small`` with the embedded model, each candidate of the content view
(``explorer.images.fit``: ``CONTENT_SHARE`` x ``SMALL_CONTENT``) by shape and colour naming with the global cosine
(``world-naming``, chance 50%), and each candidate of SGI's window around a small thing (``explorer.methods.sgi``:
``ZOOM_SMALL`` x ``ZOOM_SHARE``) by SGI's group score on two-object colour swaps; it counts the world's own validation
pictures a content candidate changes, and keeps only candidates that change none of its two-object scenes. The rule:
the best mean, then the fewest world pictures changed, then the smaller threshold.

``report`` reads the chosen defaults once on the test looks ``wide`` and ``small``, beside the ``raw`` view (the
preprocess's centre crop): shape and colour naming (global cosine), and the group score of two-object colour swaps for
the global cosine, SGI and TFLocal, each with its 95% bootstrap interval; and how far every page method's scores of
scikit-image's photos move between the two views. ``unchanged`` counts the world's test pictures the default view
changes (none is the design: the world's scenes are read as they are).

    python scripts/view_looks.py choose --limit 150 --swaps 40 --json docs/results/views/choice.json
    python scripts/view_looks.py report --limit 200 --swaps 40 --json docs/results/views/report.json
    python scripts/view_looks.py unchanged --limit 500 --swaps 200 --json docs/results/views/unchanged.json
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as python scripts/view_looks.py
from explorer import world  # noqa: E402
from explorer.core import image_state, settings  # noqa: E402
from explorer.core.intervals import percent_intervals  # noqa: E402
from explorer.engine import Engine  # noqa: E402
from explorer.eval.accuracy import item_outcomes  # noqa: E402
from explorer.images import fit  # noqa: E402
from explorer.methods import get_method  # noqa: E402
from explorer.methods.sgi import method as sgi  # noqa: E402
from explorer.models.encoders import DualEncoder  # noqa: E402

MACHINE = "2 cores of an Intel Xeon with AMX and AVX512-BF16"
SHARES, SMALLS = (0.25, 0.35, 0.45), (0.6, 0.7)
ZOOMS, ZOOM_SHARES = (0.15,), (0.25, 0.35)


def _reading(hits: list[bool]) -> dict:
    (low, high), = percent_intervals(np.array(hits, dtype=float))
    return {"value": round(100 * float(np.mean(hits)), 2), "interval": [low, high], "n": len(hits)}


def _group(methods, items) -> dict[str, dict]:
    """Each method's group score over ``items``, read through the evaluation's one loop under the current view."""
    image_state.forget()
    found = item_outcomes(methods, items)
    return {m.name: _reading([f[m.name].correct for f in found]) for m in methods}


def _naming(encoder: DualEncoder, items) -> dict:
    return _group([get_method("global", encoder)], items)["global"]


def _with(module, **values) -> Callable[[], None]:
    """Set ``module``'s constants to ``values``; returns what sets them back."""
    before = {k: getattr(module, k) for k in values}
    for k, v in values.items():
        setattr(module, k, v)
    return lambda: [setattr(module, k, v) for k, v in before.items()]


def _world_changed(size: int, limit: int) -> tuple[int, int]:
    """How many of the world's validation pictures the current content view changes: two-object, single."""
    swaps = [p for k in world.KINDS for it in world.swap_items("val-id", k, limit) for p in it.pictures(size)]
    singles = [it.pictures(size)[0] for it in world.single_items("val-id", 4 * limit)]
    return sum(fit.fit_of(p).changes for p in swaps), sum(fit.fit_of(p).changes for p in singles)


def choose(args: argparse.Namespace, encoder: DualEncoder) -> dict:
    naming = {(s, k): world.naming_items(s, k, args.limit)
              for s in ("val-wide", "val-small") for k in world.NAMING_KINDS}
    swaps = {s: world.swap_items(s, "attribute", args.swaps) for s in ("val-wide", "val-small")}
    content = []
    for share, small in itertools.product(SHARES, SMALLS):
        back = _with(fit, CONTENT_SHARE=share, SMALL_CONTENT=small)
        row = {"share": share, "small": small,
               "naming": {f"{s}/{k}": _naming(encoder, its) for (s, k), its in naming.items()}}
        row["world_two_objects_changed"], row["world_single_changed"] = _world_changed(encoder.image_size, 100)
        row["mean"] = round(float(np.mean([v["value"] for v in row["naming"].values()])), 2)
        back()
        print(json.dumps(row), flush=True)
        content.append(row)
    kept = [r for r in content if r["world_two_objects_changed"] == 0]
    best = max(kept, key=lambda r: (r["mean"], -r["world_single_changed"], -r["small"]))
    zoom = []
    back_content = _with(fit, CONTENT_SHARE=best["share"], SMALL_CONTENT=best["small"])
    for small, share in itertools.product(ZOOMS, ZOOM_SHARES):
        back = _with(sgi, ZOOM_SMALL=small, ZOOM_SHARE=share)
        row = {"zoom_small": small, "zoom_share": share,
               "sgi_group": {s: _group([get_method("sgi", encoder)], its)["sgi"] for s, its in swaps.items()}}
        row["mean"] = round(float(np.mean([v["value"] for v in row["sgi_group"].values()])), 2)
        back()
        print(json.dumps(row), flush=True)
        zoom.append(row)
    back_content()
    pick = max(zoom, key=lambda r: (r["mean"], -r["zoom_small"]))
    return {"content_candidates": content, "zoom_candidates": zoom,
            "chosen": {"CONTENT_SHARE": best["share"], "SMALL_CONTENT": best["small"],
                       "ZOOM_SMALL": pick["zoom_small"], "ZOOM_SHARE": pick["zoom_share"]},
            "rule": "content: no world two-object scene changed, then the best mean naming, then the fewest world "
                    "single objects changed, then the smaller threshold; zoom: the best mean SGI group"}


def report(args: argparse.Namespace, encoder: DualEncoder) -> dict:
    methods = [get_method(n, encoder) for n in ("global", "sgi", "tflocal")]
    out: dict = {"defaults": {"CONTENT_SHARE": fit.CONTENT_SHARE, "SMALL_CONTENT": fit.SMALL_CONTENT,
                              "ZOOM_SMALL": sgi.ZOOM_SMALL, "ZOOM_SHARE": sgi.ZOOM_SHARE}}
    for view in ("whole", "raw"):
        settings.use(dataclasses.replace(settings.current(), view=view))
        for split in ("wide", "small"):
            cell = {k: _naming(encoder, world.naming_items(split, k, args.limit)) for k in world.NAMING_KINDS}
            cell["group"] = _group(methods, world.swap_items(split, "attribute", args.swaps))
            out.setdefault(view, {})[split] = cell
            print(view, split, json.dumps(cell), flush=True)
    settings.use(dataclasses.replace(settings.current(), view="whole"))
    out["photos"] = photos(encoder)
    return out


PHOTOS = ("astronaut", "coffee", "chelsea", "rocket", "immunohistochemistry")  # scikit-image's, offline
PHOTO_CAPTIONS = ("a red cup on a white table", "a white cup on a red table")


def photos(encoder: DualEncoder) -> dict:
    """Each of scikit-image's photos scored by every page method under both views: how the whole view reads it,
    and how far each score moves (none where the photo is square: the view leaves it as it is)."""
    from PIL import Image
    from skimage import data

    engine = Engine(encoder)
    out = {}
    for name in PHOTOS:
        picture = Image.fromarray(getattr(data, name)()).convert("RGB")
        read = {view: engine.analyze(picture, *PHOTO_CAPTIONS, view=view).rows() for view in ("whole", "raw")}
        moved = {r["method"]: round(max(abs(r["a"] - q["a"]), abs(r["b"] - q["b"])), 6)
                 for r, q in zip(read["whole"], read["raw"])}
        out[name] = {"size": list(picture.size), "how": fit.fit_of(picture).how, "largest_change": moved}
        print(name, json.dumps(out[name]), flush=True)
    return out


def unchanged(args: argparse.Namespace, encoder: DualEncoder) -> dict:
    """How many of the world's test pictures the default view changes, split by split: two-object swaps of every
    kind (``--swaps`` a kind) and single objects (``--limit``)."""
    out = {}
    for split in world.SPLITS + world.DRAWN_SPLITS:
        swaps = [p for k in world.KINDS for it in world.swap_items(split, k, args.swaps) for p in it.pictures()]
        singles = [it.pictures()[0] for it in world.single_items(split, args.limit)]
        out[split] = {"two_object_pictures": len(swaps),
                      "two_object_changed": sum(fit.fit_of(p).changes for p in swaps),
                      "single_pictures": len(singles), "single_changed": sum(fit.fit_of(p).changes for p in singles)}
        print(split, out[split], flush=True)
    return {"splits": out}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["choose", "report", "unchanged"])
    parser.add_argument("--limit", type=int, default=150, help="naming items per split and kind")
    parser.add_argument("--swaps", type=int, default=40, help="two-object colour swaps per split")
    parser.add_argument("--json", required=True)
    args = parser.parse_args()
    start = time.perf_counter()
    encoder = DualEncoder()
    found = {"choose": choose, "report": report, "unchanged": unchanged}[args.step](args, encoder)
    found.update(command=f"python scripts/view_looks.py {args.step} --limit {args.limit} --swaps {args.swaps} "
                         f"--json {args.json}", model=encoder.label, machine=MACHINE,
                 seconds=round(time.perf_counter() - start, 1))
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(found, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
