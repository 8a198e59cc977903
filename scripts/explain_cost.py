"""What a map costs: each explainer against one forward pass, on the embedded model and a ViT-B-32-sized one (random
weights), side by side in one run (``explorer.speed_bench.explain_figures``, the bench's own figures), with the machine.

    python scripts/explain_cost.py --json docs/results/explanations/cost.json
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from explorer import speed_bench, speed_report  # noqa: E402
from explorer.models.encoders import DualEncoder  # noqa: E402

MODELS = {"embedded": {}, "vitb32": {"name": "ViT-B-32", "pretrained": None}}  # tag: DualEncoder's arguments
NAMES = {"embedded": "embedded world-clip", "vitb32": "ViT-B-32, random weights"}
COLUMNS = {"rollout": "rollout", "grad-eclip": "Grad-ECLIP", "legrad": "LeGrad"}  # the explainers both towers take


def _ms(value: float) -> str:
    """Milliseconds to three figures, whole from 100 on: 9.69, 36.8, 242, 1090."""
    return f"{value:.0f}" if value >= 100 else f"{value:.3g}"


def markdown(report: dict) -> str:
    """The record as docs/explanations.md shows it: a row per model, each explainer's milliseconds per caption and
    its ratio to the forward pass."""
    f = report["figures"]
    rows = [f"| {NAMES[tag]} | {_ms(f[f'explain.forward_ms.{tag}'])} ms | " + " | ".join(
        f"{_ms(f[f'explain.{name}_ms.{tag}'])} ms ({f[f'explain.{name}_over_forward.{tag}']:.1f}x)" for name in COLUMNS)
        + " |" for tag in MODELS if f"explain.forward_ms.{tag}" in f]
    rule = "|---" * (len(COLUMNS) + 2) + "|"
    return "\n".join([f"| model | forward | {' | '.join(COLUMNS.values())} |", rule, *rows]) + "\n"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS), help="(default %(default)s)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="rounds in turn, each timing's best kept: more on a busy machine (default %(default)s)")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args(argv)
    figures: dict[str, float] = {}
    for tag in args.models.split(","):
        figures |= speed_bench.explain_figures(DualEncoder(**MODELS[tag]), tag, repeat=args.repeat)
    given = (f" --repeat {args.repeat}" if args.repeat != 3 else "") + (f" --json {args.json}" if args.json else "")
    report = {"command": "python scripts/explain_cost.py" + given, "repeat": args.repeat,
              "machine": speed_report.machine(), "figures": figures}
    return speed_report.emit(report, args.json)


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    main()
