"""The project's LeGrad against the authors' code (``legrad-torch`` 1.1, ``compute_legrad_clip``) run in its own
environment with its pinned open_clip (2.23), on the same weights, pixels and texts: the shipped world-clip and a
ViT-B-32 with random weights (seed 0, its state dict saved and loaded there). With ``--tower siglip``, the attention-
pool variant against their ``compute_legrad_siglip`` (their default correction on), on ViT-B-16-SigLIP's image tower
with random weights (seed 0) beside a small text tower on open_clip's own tokenizer (SigLIP's is a download).

This script saves the inputs (each model's config and weights, each picture's pixels as the project preprocesses
them, the texts' token ids), runs ``scripts/legrad_authors.py`` with ``--authors-python`` (the other environment's
interpreter), and compares each map with the project's as the page computes it (``get_explainer("legrad", ...)``):
the Pearson r over the patches and whether the two peaks fall on the same patch, over ``--items`` world swap items
(each item's first picture with its two captions and, apart, with their segments' prompts), with 95% bootstrap
intervals over items (``scripts/explainer_references.py``'s method). It also records the largest gap between the two
environments' image features of the same pixels (the models are the same).

    python scripts/legrad_reference.py --items 30 --authors-python /work/legrad-venv/bin/python \
        --json docs/results/explanations/legrad-reference.json
    python scripts/legrad_reference.py --tower siglip --items 30 --authors-python /work/legrad-venv/bin/python \
        --json docs/results/explanations/legrad-siglip-reference.json
"""

from __future__ import annotations

import argparse
import json
import logging
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import open_clip
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from explorer import speed_report  # noqa: E402
from explorer.core import intervals  # noqa: E402
from explorer.explain import get_explainer  # noqa: E402
from explorer.explain.legrad_pool import NEUTRAL_PROMPT  # noqa: E402
from explorer.models.encoders import DualEncoder  # noqa: E402
from explorer.models.model_configs import CONFIG_DIR, EMBEDDED_MODEL  # noqa: E402
from scripts.explainer_references import (  # noqa: E402
    SEED, SPLIT, _mean_interval, _pearson, chosen_items, segment_texts,
)

RANDOM = "ViT-B-32"
POOLED = "vit-b-16-map-random"  # no "siglip" in the name: open_clip would fetch SigLIP's tokenizer for it
LAYER_INDEX = -2  # the authors' default, at which both codes run (the page's own default is chosen on val)
SCOPES = ("captions", "segments")


def plain_config() -> dict:
    """World-clip's open_clip config without ``block_type: custom``, which open_clip 2.23 does not know: its plain
    blocks, which world-clip's equal (no per-head norms or scales)."""
    config = json.loads((CONFIG_DIR / f"{EMBEDDED_MODEL}.json").read_text())
    for tower in ("vision_cfg", "text_cfg"):
        config[tower].pop("block_type", None)
    return config


def pooled_config() -> dict:
    """ViT-B-16-SigLIP's image tower (timm's, its attention pool, no projection) with a small open_clip text tower."""
    vision = open_clip.get_model_config("ViT-B-16-SigLIP")["vision_cfg"]
    return {"embed_dim": 768, "init_logit_bias": -10, "custom_text": True, "vision_cfg": vision,
            "text_cfg": {"context_length": 77, "vocab_size": 49408, "width": 256, "heads": 4, "layers": 2}}


def encoders(tower: str) -> dict[str, tuple[DualEncoder, dict | None]]:
    """The models by label, each with the open_clip config the authors' environment builds it from (None: its own
    registry's): world-clip and ViT-B-32 for ``vit``, the SigLIP tower for ``siglip``."""
    torch.manual_seed(SEED)
    if tower == "siglip":
        folder = Path(tempfile.mkdtemp())
        (folder / f"{POOLED}.json").write_text(json.dumps(pooled_config()))
        open_clip.add_model_config(folder)
        label = f"ViT-B-16-SigLIP image tower (random weights, seed {SEED})"
        return {label: (DualEncoder(POOLED, pretrained=None), pooled_config())}
    return {"world-clip": (DualEncoder(), plain_config()), f"{RANDOM} (random weights, seed {SEED})":
            (DualEncoder(RANDOM, pretrained=None), None)}


def save_inputs(folder: Path, items: list[Any], layer_index: int, tower: str) -> tuple[dict, dict]:
    """The inputs file for the authors' script, and the project's own maps ``{label: [(texts, patches)]}``, one
    run per item and scope (captions, then segments)."""
    models, mine = {}, {}
    for n, (label, (encoder, config)) in enumerate(encoders(tower).items()):
        weights = folder / f"model{n}.pt"
        torch.save(encoder.model.state_dict(), weights)
        explainer = get_explainer("legrad", encoder, layer_index=layer_index)
        runs, maps = [], []
        for item in items:
            image = item.images[0].render(encoder.image_size).convert("RGB")
            for texts in (list(item.captions), list(segment_texts(item.captions))):
                runs.append({"pixels": encoder.preprocess(image).unsqueeze(0), "ids": encoder.tokenizer(texts)})
                found = explainer.relevance(image, texts)
                maps.append(torch.tensor(np.stack([r.grid.reshape(-1) for r in found])))
        name = encoder.name if tower == "siglip" else EMBEDDED_MODEL if config else RANDOM
        models[label] = {"config_name": name, "config": config, "weights": str(weights), "layer_index": layer_index,
                         "runs": runs, "neutral_ids": encoder.tokenizer([NEUTRAL_PROMPT])}
        mine[label] = {"maps": maps, "encoder": encoder, "blocks": len(explainer.blocks)}
    return {"models": models}, mine


def readings(mine: list[torch.Tensor], theirs: list[torch.Tensor]) -> list[list[tuple[float, bool]]]:
    """Per run, per text: (Pearson r, same peak) of the two maps; r is NaN where either map is constant."""
    return [[(_pearson(a, b), int(a.argmax()) == int(b.argmax())) for a, b in zip(x.numpy(), y.float().numpy())]
            for x, y in zip(mine, theirs)]


def summarize(per_run: list[list[tuple[float, bool]]]) -> dict:
    """Mean r and share of equal peaks over items (an item's maps averaged), with intervals."""
    kept = [[(r, same) for r, same in run if not np.isnan(r)] for run in per_run]
    kept = [run for run in kept if run]
    r = np.array([np.mean([v for v, _ in run]) for run in kept])
    same = np.array([np.mean([s for _, s in run]) for run in kept])
    maps = sum(len(run) for run in per_run)
    return {"r": round(float(r.mean()), 4), "r_ci": _mean_interval(r), "r_min": round(float(min(
            v for run in kept for v, _ in run)), 4), "argmax_agreement": round(float(100 * same.mean()), 2),
            "argmax_agreement_ci": intervals.percent_intervals(same)[0], "items": len(kept), "maps": maps,
            "maps_without_r": maps - sum(len(run) for run in kept)}


def measure(items: int, authors_python: str, tower: str = "vit", layer_index: int = LAYER_INDEX) -> dict:
    """Every model's comparison, per scope."""
    chosen = chosen_items(items)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        inputs, mine = save_inputs(folder, chosen, layer_index, tower)
        torch.save(inputs, folder / "inputs.pt")
        script = Path(__file__).with_name("legrad_authors.py")
        subprocess.run([authors_python, str(script), str(folder / "inputs.pt"), str(folder / "outputs.pt")],
                       check=True, cwd=tempfile.gettempdir())
        theirs = torch.load(folder / "outputs.pt")
    out = {"authors": {"package": theirs["legrad"], "open_clip": theirs["open_clip"]}, "models": {}}
    for label, found in theirs["models"].items():
        encoder = mine[label]["encoder"]
        with torch.no_grad():
            gap = max(float((encoder.model.encode_image(run["pixels"]) - feature).abs().max())
                      for run, feature in zip(inputs["models"][label]["runs"], found["image_features"]))
        per_run = readings(mine[label]["maps"], found["maps"])
        out["models"][label] = {"authors_function": found.get("function"), "image_blocks": mine[label]["blocks"],
                                "image_feature_gap": gap,
                                **{scope: summarize(per_run[i::2]) for i, scope in enumerate(SCOPES)}}
    return out


def markdown(report: dict) -> str:
    """The record as docs/explanations.md shows it: per model, the captions' and the segments' agreement."""
    def cell(x: dict) -> str:
        return (f"{x['r']:.4f} [{x['r_ci'][0]:.4f}, {x['r_ci'][1]:.4f}] | {x['r_min']:.4f} | "
                f"{x['argmax_agreement']:.1f} [{x['argmax_agreement_ci'][0]:.1f}, {x['argmax_agreement_ci'][1]:.1f}]")

    head = ("| model | maps of | r | lowest r | same peak % | maps (without r) |\n|---|---|---|---|---|---|")
    rows = [f"| {label} | {scope} | {cell(m[scope])} | {m[scope]['maps']} ({m[scope]['maps_without_r']}) |"
            for label, m in report["figures"]["models"].items() for scope in SCOPES]
    return "\n".join([head, *rows]) + "\n"


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=30, help="world swap items, the kinds in turn (default 30)")
    parser.add_argument("--tower", choices=("vit", "siglip"), default="vit",
                        help="the class-token ViTs (default) or the attention-pool variant on a SigLIP tower")
    parser.add_argument("--authors-python", required=True, help="the interpreter of the authors' environment")
    parser.add_argument("--json", help="also write the record here")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> dict:
    args = arguments(argv)
    command = ("python scripts/legrad_reference.py" + (" --tower siglip" if args.tower == "siglip" else "")
               + f" --items {args.items} --authors-python PYTHON" + (f" --json {args.json}" if args.json else ""))
    report = {"command": command, "machine": speed_report.machine(), "precision": "fp32", "split": SPLIT,
              "items": args.items, "seed": SEED, "layer_index": LAYER_INDEX,
              "maps": "each item's first picture with its two captions, and with their segments' prompts",
              "interval": {**intervals.METHOD, "unit": "items (each the mean of its maps)"},
              "figures": measure(args.items, args.authors_python, args.tower)}
    print(markdown(report))
    return speed_report.emit(report, args.json)


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    main()
