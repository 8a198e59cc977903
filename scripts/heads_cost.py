"""What the head split costs: one forward of the image tower with the split's hooks against the same forward without
them, on the embedded model and a ViT-B-32-sized one (random weights), interleaved in one run, with the machine.

    python scripts/heads_cost.py --json docs/results/explanations/heads-cost.json
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from explorer.explain.heads import decompose  # noqa: E402
from explorer.models.encoders import DualEncoder  # noqa: E402

MODELS = {"embedded": {}, "vitb32": {"name": "ViT-B-32", "pretrained": None}}


def cpu() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines() if Path("/proc/cpuinfo").exists() else []:
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


@torch.no_grad()
def timing(model: torch.nn.Module, pixels: torch.Tensor, repeats: int) -> dict:
    """Milliseconds (median of ``repeats``) of the plain forward and of the split, each round timing both."""
    plain, split = [], []
    decompose(model, pixels), model.encode_image(pixels)  # warm
    for _ in range(repeats):
        t = time.perf_counter()
        model.encode_image(pixels)
        plain.append(1000 * (time.perf_counter() - t))
        t = time.perf_counter()
        decompose(model, pixels)
        split.append(1000 * (time.perf_counter() - t))
    p, s = statistics.median(plain), statistics.median(split)
    return {"forward_ms": round(p, 2), "split_ms": round(s, 2), "split_over_forward": round(s / p, 2)}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--json", help="write the report here")
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    report = {"command": " ".join(["python scripts/heads_cost.py", *(argv or sys.argv[1:])]), "cpu": cpu(),
              "threads": torch.get_num_threads(), "torch": torch.__version__, "images": 1, "models": {}}
    for tag, kwargs in MODELS.items():
        encoder = DualEncoder(device="cpu", **kwargs)
        pixels = torch.randn(1, 3, encoder.image_size, encoder.image_size)
        report["models"][tag] = timing(encoder.model, pixels, args.repeats)
        print(tag, report["models"][tag], flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return report


if __name__ == "__main__":
    main()
