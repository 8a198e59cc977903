"""Draw the TFLocal attention figures of docs/tflocal-world.md: one tile per content token of captions A then B.

Each figure is one world scene; a tile is the chosen layer and head's attention of one caption token over the
image, drawn by the page's own `tflocal_pictures.attention_overlay`, with the embedded model's shipped TFLocal weights.
It also prints, as a markdown table, each token's share of attention on each object's patches, at that layer and
head and averaged over all layers and heads, and with ``--json`` writes them as a record (with the command and the
weights' digests), the one docs/tflocal-world.md's table is read from.

    python scripts/attention_figures.py [--layer 1] [--head 4] [--out docs/img]
        [--json docs/results/tflocal-attention-shares.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import sys
from pathlib import Path

from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from explorer import world
from explorer.images.regions import patch_mask  # noqa: E402
from explorer.methods import get_method  # noqa: E402
from explorer.methods.tflocal import AttentionEvidence  # noqa: E402
from explorer.methods.tflocal import pictures as tflocal_pictures  # noqa: E402
from explorer.models.loader import load_encoder  # noqa: E402

FUNCTION_WORDS = {"a", "an", "and", "the"}
TILE = 192

FIGURES = {  # file stem: (objects, caption A, caption B)
    "tflocal-attribute": (
        (world.WorldObject("red", "square", "large", 0.27, 0.3),
         world.WorldObject("blue", "circle", "large", 0.72, 0.7)),
        "a red square and a blue circle", "a blue square and a red circle"),
    "tflocal-heldout": (
        (world.WorldObject("red", "triangle", "large", 0.27, 0.3),
         world.WorldObject("yellow", "square", "large", 0.72, 0.7)),
        "a red triangle and a yellow square", "a yellow triangle and a red square"),
}


def content_tokens(evidence: AttentionEvidence) -> list[int]:
    return [i for i, token in enumerate(evidence.tokens) if token.lower() not in FUNCTION_WORDS]


def token_tiles(image: Image.Image, evidence: AttentionEvidence, layer: int, head: int) -> list[Image.Image]:
    """One overlay per content token (layer and head counted from 1)."""
    return [tflocal_pictures.attention_overlay(image, evidence, [i], layer - 1, head - 1, side=TILE)
            for i in content_tokens(evidence)]


def share_values(scene: world.Scene, size: int, evidence: AttentionEvidence, layer: int, head: int
                 ) -> list[tuple[str, list[float]]]:
    """Each content token's share of attention on each object, at ``layer``/``head`` and then averaged."""
    masks = [patch_mask(m, evidence.grid, evidence.box) for m in scene.masks(size)]  # the scene drawn at ``size``
    chosen, mean = evidence.attention[layer - 1, head - 1], evidence.attention.mean((0, 1))
    return [(evidence.tokens[i], [round(float(maps[i][m].sum()), 4) for maps in (chosen, mean) for m in masks])
            for i in content_tokens(evidence)]


def attention_shares(scene: world.Scene, size: int, evidence: AttentionEvidence, layer: int, head: int) -> list[str]:
    """Markdown rows: each content token's share of attention on each object, at ``layer``/``head`` and averaged."""
    return [f"| {token} | " + " | ".join(f"{v:.2f}" for v in values) + " |"
            for token, values in share_values(scene, size, evidence, layer, head)]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def main(argv: list[str] | None = None) -> list[Path]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--layer", type=int, default=1)
    p.add_argument("--head", type=int, default=4)
    p.add_argument("--out", default="docs/img")
    p.add_argument("--json", help="also write the shares here, with the command and the weights' digests")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    method = get_method("tflocal", load_encoder())
    written, record = [], {}
    for stem, (objects, caption_a, caption_b) in FIGURES.items():
        scene = world.Scene(objects)
        image = scene.render(method.encoder.image_size)  # at the encoder's size, as eval renders
        names = [f"{o.color} {o.shape}" for o in objects]
        tiles = []
        for caption in (caption_a, caption_b):
            evidence = method.score(image, [caption])[0].evidence
            tiles += token_tiles(image, evidence, args.layer, args.head)
            print(f"\n{stem}, caption {caption!r}: share of attention on each object "
                  f"(layer {args.layer} head {args.head}, then the mean of all)\n")
            print(f"| token | {names[0]} | {names[1]} | {names[0]} (mean) | {names[1]} (mean) |\n|---|---|---|---|---|")
            print("\n".join(attention_shares(scene, image.width, evidence, args.layer, args.head)))
            record.setdefault(stem, {"objects": names})[caption] = [
                {"token": token, "shares": dict(zip(names, values[:2])), "mean_shares": dict(zip(names, values[2:]))}
                for token, values in share_values(scene, image.width, evidence, args.layer, args.head)]
        strip = Image.new("RGB", (TILE * len(tiles), TILE))
        for i, tile in enumerate(tiles):
            strip.paste(tile, (i * TILE, 0))
        path = Path(args.out) / f"{stem}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        strip.save(path)
        written.append(path)
    if args.json:
        from explorer.models import checkpoints

        weights = {name: digest(checkpoints.get(name).path) for name in ("world-clip", "world-clip-tflocal")}
        command = "python scripts/attention_figures.py " + " ".join(argv if argv is not None else sys.argv[1:])
        Path(args.json).write_text(json.dumps({"command": command.strip(), "layer": args.layer, "head": args.head,
                                               "weights_sha256": weights, "figures": record}, indent=2) + "\n")
        written.append(Path(args.json))
    return written


if __name__ == "__main__":
    print("\nwrote " + ", ".join(str(p) for p in main()))
