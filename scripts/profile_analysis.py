"""Where one page analysis spends its time, stage by stage: ``python scripts/profile_analysis.py [--device cpu]``.

Runs the engine's analysis (global, SGI, TFLocal, PowerCLIP) of fresh world scenes under cProfile and prints, per
stage, the milliseconds per analysis: a new image, and a caption edit (caption B changed, image cached). On the CPU
it counts the main thread's CPU time with one torch thread, so the profile does not depend on what else the
machine runs; work on the proposals worker thread is timed on its own. Then both kinds' stages in wall time on
torch's threads, each timed by a wrapper instead of the profiler (run it on a quiet machine).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from explorer import speed_bench as bench
from explorer.engine import Engine
from explorer.images.regions import segment_regions
from explorer.language import text
from explorer.methods import proposals
from explorer.methods.sgi import method as sgi_method
from explorer.models.loader import EncoderSpec, load_encoder

STAGES = {  # label: the (file suffix, function name) it sums; a stage absent from the code is skipped
    "global": [("methods/cosine/method.py", "score")],
    "sgi": [("methods/sgi/method.py", "score")],
    "tflocal": [("methods/tflocal/method.py", "score")],
    "powerclip": [("methods/powerclip/method.py", "score")],
    "image tower, SGI crops (encode_image)": [("open_clip/model.py", "encode_image")],
    "towers, image + texts (forward_intermediates)": [("open_clip/model.py", "forward_intermediates")],
    "text tower, to the longest caption (short_text_forward)": [("explorer/models/tower.py", "short_text_forward")],
    "SGI crops, PIL (open_clip preprocess)": [("open_clip/transform.py", "__call__")],
    "SGI crops, tensors (crop_batch)": [("explorer/images/crops.py", "crop_batch")],
    "segmentation (felzenszwalb), main thread": [("explorer/images/regions.py", "segment_regions")],
    "waiting for proposals (worker thread)": [("explorer/methods/proposals.py", "regions")],
    "text encoding, all (encode_texts)": [("explorer/models/encoders.py", "encode_texts")],
    "spaCy parse": [("spacy/language.py", "pipe"), ("spacy/language.py", "__call__")],
    "powerset exact enumeration": [("explorer/methods/powerset.py", "exact_alignment")],
}


def profile(engine: Engine, runs: int, timer) -> dict[str, dict[str, float]]:
    """Per-stage ms per analysis for a new image (``cold``) and a caption edit (``rescore``), with ``total``."""
    items = bench.fresh_items(runs + 1)
    size = engine.encoder.image_size
    engine.analyze(items[0].images[0].render(size), *items[0].captions)  # warm-up
    profiles = {"cold": cProfile.Profile(timer), "rescore": cProfile.Profile(timer)}
    totals = dict.fromkeys(profiles, 0.0)
    segmentation = 0.0
    for item in items[1:]:
        image = item.images[0].render(size)
        edit = (item.captions[0], item.captions[1] + bench.EDIT)
        for kind, captions in (("cold", item.captions), ("rescore", edit)):
            start = timer()
            profiles[kind].runcall(engine.analyze, image, *captions)
            totals[kind] += timer() - start
        start = timer()
        segment_regions(image)
        segmentation += timer() - start
    out = {kind: _stages(p, runs) | {"whole analysis": round(1e3 * totals[kind] / runs, 1)}
           for kind, p in profiles.items()}
    out["cold"]["segmentation (felzenszwalb), timed alone"] = round(1e3 * segmentation / runs, 1)
    return out


def wall_ms(engine: Engine, runs: int) -> dict[str, tuple[float, float]]:
    """Wall ms (median) per stage of an analysis of a new image and of a caption edit after it, each stage timed by a
    wrapper (no profiler): cProfile's per-call cost inflates spaCy's and torch's many small Python calls (it showed
    7 ms for a 3.9 ms parse), and the proposals worker and the tower's parts run beside the analysis thread."""
    spent: dict[str, float] = {}
    order: list[str] = []

    def timed(owner: object, name: str, label: str) -> None:
        inner = getattr(owner, name)
        order.append(label)

        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                spent[label] = spent.get(label, 0.0) + time.perf_counter() - start
        setattr(owner, name, wrapper)

    encoder = engine.encoder
    timed(text, "parse_many", "spaCy parse of new captions")
    timed(encoder, "_encode_text_batch", "text tower: new captions and their companions")
    timed(encoder, "encode_texts", "text encoding, all (parse and tower)")
    timed(encoder, "_encode_image_batch", "image features tower (the image)")
    timed(sgi_method, "crop_batch", "SGI crops (tensors)")
    timed(proposals, "make_room", "waiting for the segmentation beside (make_room)")
    timed(encoder, "embed_pixels", "SGI crops' image tower")
    timed(proposals, "regions", "PowerCLIP's regions")
    for name, method in engine.methods.items():
        timed(method, "score", f"method {name}")
    samples: dict[str, tuple[list[float], list[float]]] = {}
    for item in bench.fresh_items(2 * runs + 2)[runs + 1 :]:  # items the profile did not see: new images, captions
        image = item.images[0].render(encoder.image_size)
        for column, captions in enumerate((item.captions, (item.captions[0], item.captions[1] + bench.EDIT))):
            spent.clear()
            start = time.perf_counter()
            engine.analyze(image, *captions)
            for label, seconds in {**spent, "whole": time.perf_counter() - start}.items():
                samples.setdefault(label, ([], []))[column].append(seconds)
    return {label: tuple(round(1e3 * float(np.median(s[1:])), 2) if len(s) > 1 else 0.0 for s in samples[label])
            for label in [*order, "whole"] if label in samples}  # type: ignore[misc]


def _stages(prof: cProfile.Profile, runs: int) -> dict[str, float]:
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    out = {}
    for label, functions in STAGES.items():
        total = sum(v[3] for (path, _, fn), v in stats.items()
                    if any(fn == n and path.endswith(s) for s, n in functions))
        if total:
            out[label] = round(1e3 * total / runs, 1)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--device", default=None)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--precision", default="native", help="the towers' precision (default native, the page's)")
    args = p.parse_args()
    engine = Engine(load_encoder(EncoderSpec(device=args.device, precision=args.precision)))
    engine.encoder.wait_warm()
    on_cpu = engine.encoder.device == "cpu"
    threads = torch.get_num_threads()
    if on_cpu:
        torch.set_num_threads(1)
    stages = profile(engine, args.runs, time.thread_time if on_cpu else time.perf_counter)
    print(f"{'main-thread CPU' if on_cpu else 'wall'} ms per analysis, {args.runs} runs, {engine.encoder.label} "
          f"on {engine.encoder.device}, --precision {args.precision}\n\n"
          "| stage | new image | caption edit |\n|---|---|---|")
    for label in dict.fromkeys([*stages["cold"], *stages["rescore"]]):
        print(f"| {label} | {stages['cold'].get(label, '')} | {stages['rescore'].get(label, '')} |")
    torch.set_num_threads(threads)
    print(f"\nwall ms (median of {args.runs}, torch's {threads} threads), timed per stage without a profiler\n\n"
          f"| stage | new image | caption edit |\n|---|---|---|")
    for label, (cold, edit) in wall_ms(engine, args.runs).items():
        print(f"| {label} | {cold} | {edit} |")


if __name__ == "__main__":
    main()
