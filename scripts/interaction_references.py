"""The project's token x patch interactions (``explorer/explain/interactions.py``) against the authors' own code:
``exclip``'s ``OpenClipExplainer.explain`` (Moeller et al., TMLR 2025; ``pip install exclip --no-deps --target DIR``),
on the embedded world-clip and on a ViT-B-32 with random weights (seeded), the same weights and inputs in both.

``exclip``'s package imports OpenAI's ``clip`` (installable from git only) in its ``__init__``; its explanation module
needs only torch and tqdm, so it is loaded here by its file (``--exclip DIR``, the folder holding ``exclip/``).
Both run at the authors' defaults: 10 interpolation steps, the last block's input of each tower, cosine units.

Per map (an image and a caption: tokens from the start token to the end token x patches), the Pearson r of the two
over all entries, and the share of tokens whose peak patch is the same; over ``--items`` world swap items of ``id``
(each item's first picture with both captions), with 95% bootstrap intervals over items.

    python scripts/interaction_references.py --exclip /path/to/site --items 6 --vit-items 1 \\
        --json docs/results/explanations/interaction-references.json
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from explorer import speed_report, world  # noqa: E402
from explorer.core import intervals  # noqa: E402
from explorer.explain.interactions import STEPS, interactions  # noqa: E402
from explorer.models.encoders import DualEncoder  # noqa: E402

SEED = 0
SPLIT = "id"


def authors_module(folder: str) -> Any:
    """``exclip/explanation.py`` from ``folder``, without the package's ``__init__``."""
    path = Path(folder) / "exclip" / "explanation.py"
    if not path.is_file():
        raise SystemExit(f"no exclip/explanation.py under {folder}: pip install exclip --no-deps --target {folder}")
    spec = importlib.util.spec_from_file_location("exclip_explanation", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def authors_map(module: Any, encoder: DualEncoder, image, caption: str) -> np.ndarray:
    """(tokens, h, w) the authors' interactions, at their defaults but for the model's last blocks and sizes; their
    hooks are taken off after (``explain`` leaves them on the model)."""
    model = encoder.model
    explainer = module.OpenClipExplainer(model, image_dim=encoder.image_size, text_seq_len=encoder.context_length,
                                         device=torch.device(encoder.device))
    layers = dict(text_layer=len(model.transformer.resblocks) - 1,
                  image_layer=len(model.visual.transformer.resblocks) - 1)
    pixels = encoder.preprocess(image.convert("RGB"))[None].to(encoder.device)
    ids = encoder.tokenizer([caption]).to(encoder.device)
    try:
        return explainer.explain(ids, pixels, N=STEPS, **layers).numpy()
    finally:
        explainer.reset_attribution()


def compare(ours: np.ndarray, theirs: np.ndarray) -> tuple[float, float]:
    """(Pearson r over every token x patch entry, the share of tokens whose peak patch is the same)."""
    r = float(np.corrcoef(ours.ravel(), theirs.ravel())[0, 1])
    peaks = (ours.reshape(len(ours), -1).argmax(1) == theirs.reshape(len(theirs), -1).argmax(1)).mean()
    return r, float(peaks)


def measure(module: Any, encoder: DualEncoder, n_items: int) -> dict:
    """r and equal peaks per item (mean over its maps), with intervals over items."""
    per_item, gaps = [], []
    items = [world.swap_items(SPLIT, world.KINDS[i % len(world.KINDS)], n_items)[i // len(world.KINDS)]
             for i in range(n_items)]  # the kinds in turn
    for item in items:
        image = item.images[0].render(encoder.image_size)
        rows = []
        for mine in interactions(encoder, image, item.captions):
            theirs = authors_map(module, encoder, image, mine.caption)
            rows.append(compare(mine.values, theirs))
            gaps.append(float(np.abs(mine.values - theirs).max() / np.abs(theirs).max()))
        per_item.append(np.mean(rows, 0))
    table = np.array(per_item)
    return {"r": round(float(table[:, 0].mean()), 6), "r_min": round(float(table[:, 0].min()), 6),
            "r_ci": [round(v / 100, 6) for v in intervals.percent_intervals(table[:, :1])[0]],
            "equal_peaks": round(100 * float(table[:, 1].mean()), 2),
            "equal_peaks_ci": intervals.percent_intervals(table[:, 1:2])[0],
            "max_gap_over_max": float(f"{max(gaps):.3g}"), "items": len(items), "maps": 2 * len(items)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--exclip", required=True, help="the folder holding exclip/ (pip install --target)")
    p.add_argument("--items", type=int, default=6, help="world swap items on world-clip")
    p.add_argument("--vit-items", type=int, default=1,
                   help="world swap items on the random ViT-B-32 (0: skip it; the authors' code takes one backward "
                        "pass per embedding dimension, 2 x 512 per map)")
    p.add_argument("--json", help="write the record here")
    args = p.parse_args()
    module = authors_module(args.exclip)
    figures = {"world-clip (embedded)": measure(module, DualEncoder(device="cpu"), args.items)}
    if args.vit_items:
        torch.manual_seed(SEED)
        vit = DualEncoder(name="ViT-B-32", device="cpu")
        figures[f"ViT-B-32 / random weights (torch seed {SEED})"] = measure(module, vit, args.vit_items)
    command = (f"python scripts/interaction_references.py --exclip DIR --items {args.items} "
               f"--vit-items {args.vit_items}" + (f" --json {args.json}" if args.json else ""))
    record = {"command": command, "reference": "exclip 1.1, exclip/explanation.py: OpenClipExplainer.explain",
              "machine": speed_report.machine(), "precision": "fp32", "split": SPLIT, "steps": STEPS,
              "layers": "the last block's input of each tower",
              "maps": "each item's first picture with its two captions",
              "figures": figures}
    print(json.dumps(record, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
