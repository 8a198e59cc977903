"""LeGrad's pointing and energy on the world's val splits at each ``layer_index`` (which blocks it reads), the
embedded model, beside the random baseline of the same run: the pointing command's code with the setting passed.

    python scripts/legrad_layers.py --split val-id,val-heldout --limit 5 \
        --json docs/results/explanations/legrad-layers.json
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from explorer import speed_report  # noqa: E402
from explorer.explain.legrad import LAYER_INDEX, LeGrad  # noqa: E402
from explorer.explain.pointing import pointing_report  # noqa: E402
from explorer.models.encoders import DualEncoder  # noqa: E402


def measure(encoder: DualEncoder, splits: list[str], limit: int) -> dict[str, dict]:
    """``{layer_index: {split: {pointing, energy, n, ci}}}`` for every layer_index of the tower, and the random map's
    under ``"random"``."""
    depth = len(encoder.model.visual.transformer.resblocks)
    out = {}
    try:
        for index in range(-1, -depth - 1, -1):  # -depth is every block, as 0 is
            LeGrad.layer_index = index
            results = pointing_report(encoder, splits, limit, ["legrad", "random"])["results"]
            out[str(index)] = results["legrad"]
            out.setdefault("random", results["random"])
    finally:
        LeGrad.layer_index = LAYER_INDEX
    return out


def markdown(report: dict) -> str:
    splits = report["splits"]
    head = "| layer_index | " + " | ".join(f"{s} pointing | {s} energy" for s in splits) + " |\n|---|" + \
        "---|---|" * len(splits)
    rows = [f"| {name} | " + " | ".join(f"{r[s]['pointing']} [{r[s]['ci']['pointing'][0]}, {r[s]['ci']['pointing'][1]}]"
                                       f" | {r[s]['energy']}" for s in splits) + " |"
            for name, r in sorted(report["figures"].items(), key=lambda x: x[0] == "random")]
    return "\n".join([head, *rows]) + "\n"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="val-id,val-heldout")
    parser.add_argument("--limit", type=int, default=5, help="swap items per split and kind (default 5)")
    parser.add_argument("--json", help="also write the record here")
    args = parser.parse_args(argv)
    encoder = DualEncoder()
    command = f"python scripts/legrad_layers.py --split {args.split} --limit {args.limit}" + (
        f" --json {args.json}" if args.json else "")
    report = {"command": command, "model": encoder.label, "machine": speed_report.machine(), "splits":
              args.split.split(","), "limit": args.limit, "figures": measure(encoder, args.split.split(","),
                                                                            args.limit)}
    print(markdown(report))
    return speed_report.emit(report, args.json)


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    main()
