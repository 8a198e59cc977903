"""Train several world-clip recipes side by side on one GPU and read each one's recognition and binding.

Each recipe is one process (scenes drawn on one CPU core, the model on the GPU). After training, a recipe is read
with the embedded model's own measures, on the world's validation splits (val-id, val-heldout, val-shift: never
the test items a model card reports): world-single top-1, the `recognition` readings, and the global-cosine
attribute-swap group score. Used to choose the recipe of the embedded model; the chosen one is then trained on the
CPU with `python -m explorer train-world`, whose card is what ships (measured on the test splits).

    python scripts/recipe_sweep.py --out DIR k8 k8-g0.5 k16 ...

A recipe name joins `k<extra concepts>`, `g<grey images>`, `u<unnamed colours>`, `p<partial captions>` and
`b<benchmark share>` and `s<seed>` with dashes (the letters are the `recipe` of the `TrainConfig` fields in
`explorer/training/config.py`).
"""

from __future__ import annotations

import argparse
import json
import logging
import multiprocessing as mp
import re
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as python scripts/recipe_sweep.py


def recipe_config(name: str, steps: int, batch_size: int):
    """The ``TrainConfig`` a recipe name stands for."""
    from explorer.training.config import TrainConfig, recipe_fields, value_type

    fields = recipe_fields(TrainConfig)
    values = {}
    for part in name.split("-"):
        match = re.fullmatch(rf"([{''.join(fields)}])([0-9.]+)", part)
        if not match:
            raise ValueError(f"bad recipe part {part!r} in {name!r} (letters: {', '.join(fields)})")
        field = fields[match[1]]
        values[field] = value_type(TrainConfig, field)(match[2])
    return TrainConfig(steps=steps, batch_size=batch_size, threads=1, checkpoint_every=steps, **values)


def percent_right(encoder, items, benchmark: str) -> float:
    """Percent of ``items`` the global cosine gets right, through the evaluation's one scoring loop (in the chunks of
    ``benchmark``) and by its rule: a tie fails."""
    from explorer.eval.accuracy import item_outcomes
    from explorer.methods import get_method

    found = item_outcomes([get_method("global", encoder)], items, benchmark)
    return float(np.mean([f["global"].correct for f in found]) * 100)


def top1(encoder, split: str, limit: int) -> float:
    """World-single top-1: each single-object image told among all objects' captions."""
    from explorer import world

    return percent_right(encoder, world.single_items(split, limit), "world-single")


def attribute_group(encoder, split: str, limit: int) -> float:
    """Global-cosine group score on attribute swaps: both captions and both images matched."""
    from explorer import world

    return percent_right(encoder, world.swap_items(split, "attribute", limit), "world")


def run_recipe(name: str, out: Path, weights_dir: Path, steps: int, batch_size: int, device: str, limit: int,
               workers: int) -> None:
    import torch

    from explorer.eval.recognition import readings
    from explorer.models.loader import EncoderSpec, load_encoder
    from explorer.training.world_clip import train
    from explorer.world import VAL_PREFIX as VAL  # recipes are chosen on the validation splits

    logging.basicConfig(level=logging.WARNING)
    torch.set_num_threads(1)
    cfg = recipe_config(name, steps, batch_size)
    weights = weights_dir / f"{name}.safetensors"
    t0 = time.time()
    record = train(cfg, weights_dir / f"run-{name}", weights, device, workers)
    encoder = load_encoder(EncoderSpec(cfg.model, checkpoint=weights, device=device))
    result = {"recipe": name, "config": record["config"], "train_wall_s": record["wall_s"],
              "device": record["device"], "final_loss": record["final_loss"],
              "read_on": "validation splits",
              "top1": {split: top1(encoder, VAL + split, limit) for split in ("id", "heldout", "shift")},
              "attribute_group": {split: attribute_group(encoder, VAL + split, 200) for split in ("id", "heldout")},
              "recognition": readings(encoder, limit, prefix=VAL), "total_s": round(time.time() - t0, 1)}
    (out / f"{name}.json").write_text(json.dumps(result, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("recipes", nargs="+")
    parser.add_argument("--out", type=Path, required=True, help="where each recipe's readings (JSON) go")
    parser.add_argument("--weights-dir", type=Path, help="where the weights and run state go (default: --out)")
    parser.add_argument("--workers", type=int, default=0, help="scene-drawing processes per recipe")
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--limit", type=int, default=500, help="single-object items per split")
    parser.add_argument("--deadline-s", type=float, default=3600, help="stop waiting for recipes after this long")
    args = parser.parse_args()
    weights_dir = args.weights_dir or args.out
    for folder in (args.out, weights_dir):
        folder.mkdir(parents=True, exist_ok=True)
    for name in args.recipes:
        recipe_config(name, args.steps, args.batch_size)  # a bad name fails before anything starts
    ctx = mp.get_context("spawn")
    procs = {name: ctx.Process(target=run_recipe, args=(name, args.out, weights_dir, args.steps, args.batch_size,
                                                        args.device, args.limit, args.workers))
             for name in args.recipes}
    for p in procs.values():
        p.start()
    start = time.time()
    for name, p in procs.items():
        p.join(max(0.0, args.deadline_s - (time.time() - start)))
        if p.is_alive():
            p.terminate()
            print(f"{name}: stopped at the deadline", flush=True)
    rows = []
    for name in args.recipes:
        path = args.out / f"{name}.json"
        if path.exists():
            r = json.loads(path.read_text())
            rows.append(r)
            print(f"{name:16s} (validation) id {r['top1']['id']:5.1f} heldout {r['top1']['heldout']:5.1f} shift "
                  f"{r['top1']['shift']:5.1f} attr-group id {r['attribute_group']['id']:5.1f} heldout "
                  f"{r['attribute_group']['heldout']:5.1f} | among-heldout {r['recognition']['among_heldout']:5.1f} "
                  f"shape-probe {r['recognition']['probe_shape']:5.1f} | train {r['train_wall_s']:.0f} s", flush=True)
    (args.out / "sweep.json").write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
