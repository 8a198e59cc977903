"""SGI's two crop modes on the world benchmark: group score (%) per crop mode, split and swap kind.

Runs ``explorer.eval.accuracy.evaluate_items`` with the embedded encoder and ``sgi`` in crop mode ``resize`` (the
published crop-and-resize) and ``mask`` (the default), on the heldout and shift splits, attribute and size swaps,
100 items each, and writes ``{"resize/heldout": {"attribute": group, "size": group}, ..., "command": ...}`` to
``docs/results/sgi-crop-modes.json`` (read by docs/sgi-world.md). It is what

    python -m explorer eval --benchmark world --methods sgi --split heldout,shift --limit 100 --set sgi.crop_mode=MODE

reports for those kinds, one run per mode.

    python scripts/sgi_crop_modes.py [--limit 100] [--threads 1] [--out docs/results/sgi-crop-modes.json]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from explorer.eval.accuracy import evaluate_items
from explorer.eval.benchmark_registry import load_items
from explorer.methods import get_method
from explorer.models.encoders import DualEncoder
from explorer.models.loader import load_encoder
from scripts.provenance import environment, write_report

CROP_MODES = ("resize", "mask")
SPLITS = ("heldout", "shift")
KINDS = ("attribute", "size")
OUT = Path("docs/results/sgi-crop-modes.json")


def crop_mode_groups(encoder: DualEncoder, limit: int) -> dict[str, dict[str, float]]:
    """``{"MODE/SPLIT": {KIND: group score in percent}}`` for every crop mode and split."""
    out: dict[str, dict[str, float]] = {}
    for mode in CROP_MODES:
        method = get_method("sgi", encoder, crop_mode=mode)
        for split in SPLITS:
            items = [it for it in load_items("world", limit=limit, split=split) if it.kind in KINDS]
            found = evaluate_items([method], items, "world", task=split)[method.name]
            out[f"{mode}/{split}"] = {kind: found[kind]["group"] for kind in KINDS}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=100, help="items per split and kind")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (the scores do not depend on it)")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    start = time.perf_counter()
    report: dict = crop_mode_groups(load_encoder(), args.limit)
    report["command"] = "python scripts/sgi_crop_modes.py" + ("" if args.limit == 100 else f" --limit {args.limit}")
    report["environment"] = environment(start)
    write_report(report, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
