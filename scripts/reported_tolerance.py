"""How far a figure moves with the things that differ between a source's harness and this project's, measured: the
SugarCrepe figure (the mean of its categories' accuracies) and the Winoground group score of one model, on fixtures
in those benchmarks' layouts built from world scenes in wider pictures, under

- this project's harness (``explorer.eval.accuracy.evaluate``, the pictures read as the authors' scripts read them)
  at fp32 and at bf16;
- a second harness written here from open_clip alone (the model's own preprocess, ``encode_image``/``encode_text``,
  normalized cosines, as the authors' scripts compute them) with the preprocess's bicubic resize, with a bilinear
  one instead, and under bf16 autocast.

The spread (largest minus smallest figure over the five) of each model and benchmark is written with every figure to
docs/results/zoo/tolerance.json; ``--check-reported``'s default tolerance is the largest spread rounded up to half a
point (explorer/eval/reported_check.py, docs/zoo.md).

    python scripts/reported_tolerance.py --per 100 --json docs/results/zoo/tolerance.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import zlib
from pathlib import Path

import numpy as np
import torch
from PIL import Image
from torchvision import transforms

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from explorer import world
from explorer.eval.accuracy import evaluate
from explorer.methods import get_method
from explorer.models.loader import EncoderSpec, load_encoder

MODELS = ("world-clip",)  # one model: the embedded one, small enough to score every variant here
SUGARCREPE = {"swap_att": "attribute", "replace_rel": "relation", "replace_obj": "object", "swap_obj": "size"}
WINOGROUND = {"Object": "attribute", "Relation": "relation"}
SPLIT = "val-id"  # a validation split: the tolerance is chosen on it, never on reported items
WIDE, SIDE = (264, 192), 192  # a COCO-like wider picture, the scene in its middle, larger than the model reads


def picture(scene) -> Image.Image:
    """The scene in the middle of a wider picture whose sides are noise (a centre crop drops them)."""
    noise = np.random.default_rng(zlib.crc32(repr(scene).encode())).integers(0, 256, (WIDE[1], WIDE[0], 3))
    out = Image.fromarray(noise.astype(np.uint8))
    out.paste(scene.render(SIDE), ((WIDE[0] - SIDE) // 2, 0))
    return out


def build(root: Path, per: int) -> dict[str, Path]:
    """SugarCrepe's ``<category>.json`` with ``val2017/`` and Winoground's ``examples.jsonl`` with ``images/``."""
    sugar, wino = root / "sugarcrepe", root / "winoground"
    for cat, kind in SUGARCREPE.items():
        table = {}
        for i, item in enumerate(world.swap_items(SPLIT, kind, per)):
            name = f"{cat}_{i:012d}.jpg"
            (sugar / "val2017").mkdir(parents=True, exist_ok=True)
            picture(item.images[0]).save(sugar / "val2017" / name)
            table[str(i)] = {"filename": name, "caption": item.captions[0], "negative_caption": item.captions[1]}
        (sugar / f"{cat}.json").write_text(json.dumps(table))
    rows = []
    (wino / "images").mkdir(parents=True, exist_ok=True)
    for tag, kind in WINOGROUND.items():
        for item in world.swap_items(SPLIT, kind, per):
            names = [f"ex_{len(rows)}_img_{k}" for k in (0, 1)]
            for k in (0, 1):
                picture(item.images[k]).save(wino / "images" / f"{names[k]}.png")
            rows.append({"id": len(rows), "image_0": names[0], "image_1": names[1], "caption_0": item.captions[0],
                         "caption_1": item.captions[1], "tag": tag, "secondary_tag": "", "num_main_preds": 1,
                         "collapsed_tag": tag})
    (wino / "examples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return {"sugarcrepe": sugar, "winoground": wino}


def ours(name: str, precision: str, data: dict[str, Path]) -> dict[str, float]:
    """This project's figures: SugarCrepe's mean of its categories, Winoground's group score."""
    method = get_method("global", load_encoder(EncoderSpec(checkpoint=name, device="cpu", precision=precision)))
    sugar = evaluate([method], "sugarcrepe", None, data=data["sugarcrepe"])["global"]
    wino = evaluate([method], "winoground", None, data=data["winoground"])["global"]
    return {"sugarcrepe": float(np.mean([sugar[c]["accuracy"] for c in SUGARCREPE])),
            "winoground": float(wino["all"]["group"])}


def reference(name: str, data: dict[str, Path], resize: str, bf16: bool) -> dict[str, float]:
    """The second harness: open_clip's model, preprocess (its resize ``bicubic`` or ``bilinear``) and tokenizer."""
    encoder = load_encoder(EncoderSpec(checkpoint=name, device="cpu", precision="fp32"))
    model, tokenize = encoder.model.eval(), encoder.tokenizer
    preprocess = encoder.preprocess
    if resize == "bilinear":
        steps = [transforms.Resize(s.size, interpolation=transforms.InterpolationMode.BILINEAR)
                 if isinstance(s, transforms.Resize) else s for s in preprocess.transforms]
        preprocess = transforms.Compose(steps)

    def cos(images: list[Image.Image], captions: list[str]) -> np.ndarray:
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            img = model.encode_image(torch.stack([preprocess(i.convert("RGB")) for i in images])).float()
            txt = model.encode_text(tokenize(captions)).float()
        img, txt = img / img.norm(dim=-1, keepdim=True), txt / txt.norm(dim=-1, keepdim=True)
        return (txt @ img.T).numpy()

    accs = []
    for cat in SUGARCREPE:
        rows = json.loads((data["sugarcrepe"] / f"{cat}.json").read_text()).values()
        hits = [(lambda s: s[0, 0] > s[1, 0])(cos([Image.open(data["sugarcrepe"] / "val2017" / r["filename"])],
                                                  [r["caption"], r["negative_caption"]])) for r in rows]
        accs.append(100 * float(np.mean(hits)))
    group = []
    for line in (data["winoground"] / "examples.jsonl").read_text().splitlines():
        r = json.loads(line)
        s = cos([Image.open(data["winoground"] / "images" / f"{r[k]}.png") for k in ("image_0", "image_1")],
                [r["caption_0"], r["caption_1"]])
        text = s[0, 0] > s[1, 0] and s[1, 1] > s[0, 1]
        image = s[0, 0] > s[0, 1] and s[1, 1] > s[1, 0]
        group.append(text and image)
    return {"sugarcrepe": float(np.mean(accs)), "winoground": 100 * float(np.mean(group))}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--per", type=int, default=100, help="items per category (default %(default)s)")
    p.add_argument("--json", type=Path, required=True)
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        data = build(Path(tmp), args.per)
        figures = {}
        for name in MODELS:
            figures[name] = {
                "ours fp32": ours(name, "fp32", data), "ours bf16": ours(name, "bf16", data),
                "open_clip bicubic fp32": reference(name, data, "bicubic", False),
                "open_clip bilinear fp32": reference(name, data, "bilinear", False),
                "open_clip bicubic bf16": reference(name, data, "bicubic", True)}
            print(name, json.dumps(figures[name]), file=sys.stderr)
    spread = {name: {b: round(max(v[b] for v in runs.values()) - min(v[b] for v in runs.values()), 2)
                     for b in ("sugarcrepe", "winoground")} for name, runs in figures.items()}
    largest = max(v for s in spread.values() for v in s.values())
    record = {"command": "python scripts/reported_tolerance.py " + " ".join(argv or sys.argv[1:]),
              "per_category": args.per, "sugarcrepe_categories": SUGARCREPE, "winoground_tags": WINOGROUND,
              "figures": figures, "spread": spread, "largest_spread": largest,
              "tolerance": max(0.5, math.ceil(largest * 2) / 2), "cpu": "AMD EPYC (AVX2 only)"}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(record, indent=1) + "\n")
    print(json.dumps({"spread": spread, "tolerance": record["tolerance"]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
