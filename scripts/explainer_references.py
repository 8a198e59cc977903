"""Each explainer of the "Where the model looks" view against a re-implementation of its reference code, on the
embedded world-clip: how far the project's map is from the one the reference code would draw, and why.

The references, re-implemented here from their logic over world-clip's own modules (no reference code is copied):

- Chefer et al.'s CLIP notebook (Transformer-MM-Explainability, ``CLIP_explainability.ipynb``, ``interpret``):
  the score is ``logits_per_image`` (the logit scale times the cosine), its diagonal summed over the texts; for each
  image block from a start block, A_bar = mean over heads of ReLU(d score / dA * A), R += A_bar R; the map is
  R[class token, patches]. The text side is the same rollout over the text tower, read at R[EOT, 1:EOT] / its sum.
- Grad-ECLIP's authors' code (Cyang-Zhao/Grad-Eclip, ``grad_eclip_image.ipynb``: ``clip_encode_dense`` and
  ``grad_eclip``): the last block is computed again with one head (the whole width); the gradient of the cosine is
  taken by that one-head attention output; query and key are read through the block's output projection; the map is
  ReLU(sum over channels of grad[class token] x value[patch] x the min-max normalised cosine of the class token's
  query and the patch's key).

Each comparison is read per map (an image and a caption) as the Pearson r of the two maps over the patches and
whether their peaks fall on the same patch (for the text side: over the content tokens, and the same top token); over
``--items`` world swap items, each item's first picture with both of its captions and, apart, with the prompts of
their segments ("a red square", as the page maps them), with 95% bootstrap intervals over items (an item's maps
averaged; ``explorer.core.intervals``' method).

    python scripts/explainer_references.py --items 50 --json docs/results/explanations/references.json
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from explorer import speed_report, world  # noqa: E402
from explorer.core import intervals  # noqa: E402
from explorer.explain import get_explainer  # noqa: E402
from explorer.language.prompts import segment_prompts  # noqa: E402
from explorer.models.encoders import DualEncoder  # noqa: E402

SEED = 0
SPLIT = "id"

# what each comparison sets side by side: (project's map, reference's map), read on the image's patches
IMAGE_PAIRS = {
    "rollout.logit": "project rollout from block 0 (cosine) vs the notebook's (logit-scaled score) from block 0",
    "rollout.cosine": "project rollout from block 0 vs the notebook's logic on the cosine from block 0 (wiring check)",
    "rollout.logit_last": "project rollout from the last block vs the notebook's (logit) from the last block",
    "grad_eclip.paper": "project Grad-ECLIP with the paper's loosened attention (loose=True) vs the authors' code",
    "grad_eclip.default": "project Grad-ECLIP as the page draws it (softmax attention) vs the authors' code",
    "grad_eclip.gradient_only": "the authors' code with the true three-head forward's gradient vs the authors' code "
                                "(the one-head gradient's share of the difference)",
    "grad_eclip.qk_only": "project Grad-ECLIP (loose=True) vs the authors' code with the three-head gradient "
                          "(query and key before vs after the output projection)",
}
TEXT_PAIRS = {
    "tokens.rollout_first": "the page's token shares (|gradient x input|) vs the notebook's text rollout from block 0",
    "tokens.rollout_last": "the page's token shares vs the notebook's text rollout from the last block (its default)",
}


# the table's rows: (explainer, reference, what differs, comparison)
ROWS = [
    ("rollout", "Chefer's CLIP notebook, from block 0",
     "differentiates the cosine, not the logit-scaled score", "rollout.logit"),
    ("rollout", "the same, on the cosine", "nothing (the re-implementation's wiring)", "rollout.cosine"),
    ("rollout", "the notebook from the last block (its default)",
     "nothing: the scale factors out of a one-block rollout", "rollout.logit_last"),
    ("Grad-ECLIP, the paper's attention", "the authors' code",
     "gradient through the true three-head forward; query and key before the output projection",
     "grad_eclip.paper"),
    ("Grad-ECLIP, as the page draws it", "the authors' code",
     "the above, and the block's own softmax attention for the loosened one", "grad_eclip.default"),
    ("the authors' code, three-head gradient", "the authors' code", "the gradient alone",
     "grad_eclip.gradient_only"),
    ("Grad-ECLIP, the paper's attention", "the authors' code, three-head gradient",
     "query and key before the output projection alone", "grad_eclip.qk_only"),
    ("token shares (gradient x input)", "the notebook's text rollout from block 0",
     "a different definition", "tokens.rollout_first"),
    ("token shares (gradient x input)", "the notebook's text rollout from the last block",
     "a different definition", "tokens.rollout_last"),
]


def _check(model: torch.nn.Module) -> None:
    """The re-implementations write world-clip's blocks out as the reference code's CLIP has them: pre-norm blocks,
    plain scaled-dot-product attention, no per-head norms, scales or layer scales."""
    for block in [*model.visual.transformer.resblocks, *model.transformer.resblocks]:
        attn = block.attn
        plain = [attn.ln_q, attn.ln_k, attn.ln_inner, block.ln_attn, block.ls_1, block.ls_2]
        if not all(isinstance(m, torch.nn.Identity) for m in plain) or attn.head_scale is not None \
                or attn.logit_scale is not None:
            raise ValueError("the references are written for plain pre-norm CLIP blocks (world-clip's)")
    if not (model.visual.transformer.batch_first and model.transformer.batch_first):
        raise ValueError("the references expect batch-first towers")


def _block(block: torch.nn.Module, x: torch.Tensor, heads: int, mask: torch.Tensor | None = None) -> dict:
    """One pre-norm block with its attention written out over ``heads`` heads: its output and what it recorded."""
    attn = block.attn
    n, length, width = x.shape
    q, k, v = F.linear(block.ln_1(x), attn.in_proj_weight, attn.in_proj_bias).chunk(3, dim=-1)
    split = [t.reshape(n, length, heads, width // heads).transpose(1, 2) for t in (q, k, v)]
    logits = split[0] * (width // heads) ** -0.5 @ split[1].transpose(-1, -2)
    probs = (logits + mask if mask is not None else logits).softmax(dim=-1)
    mixed = (probs @ split[2]).transpose(1, 2).reshape(n, length, width)
    x = x + attn.out_proj(mixed)
    x = x + block.mlp(block.ln_2(x))
    return {"out": x, "probs": probs, "q": q, "k": k, "v": v, "mixed": mixed}


def image_forward(model: torch.nn.Module, pixels: torch.Tensor, one_head_last: bool = False
                  ) -> tuple[torch.Tensor, list[dict]]:
    """The image tower's feature and each block's record; ``one_head_last``: the last block with one head, as
    Grad-ECLIP's ``clip_encode_dense`` computes it."""
    visual = model.visual
    x, record = visual._embeds(pixels), []
    blocks = visual.transformer.resblocks
    for i, block in enumerate(blocks):
        record.append(_block(block, x, 1 if one_head_last and i == len(blocks) - 1 else block.attn.num_heads))
        x = record[-1]["out"]
    pooled, _ = visual._pool(x)
    return pooled @ visual.proj, record


def text_forward(model: torch.nn.Module, ids: torch.Tensor) -> tuple[torch.Tensor, list[dict]]:
    """The text tower's feature (read at the EOT token, the highest id) and each block's record."""
    x, record = model.token_embedding(ids) + model.positional_embedding, []
    for block in model.transformer.resblocks:
        record.append(_block(block, x, block.attn.num_heads, model.attn_mask))
        x = record[-1]["out"]
    x = model.ln_final(x)
    return x[torch.arange(len(ids)), ids.argmax(dim=-1)] @ model.text_projection, record


def chefer_rollout(probs: Sequence[torch.Tensor], grads: Sequence[torch.Tensor], start: int) -> torch.Tensor:
    """The notebook's ``interpret`` loop: R = I; R += mean over heads of ReLU(grad x probs) @ R, from ``start``."""
    tokens = probs[0].shape[-1]
    rollout = torch.eye(tokens).expand(len(probs[0]), tokens, tokens)
    for i, (p, g) in enumerate(zip(probs, grads)):
        if i >= start:
            rollout = rollout + torch.bmm((g * p).detach().clamp(min=0).mean(dim=1), rollout)
    return rollout


def authors_grad_eclip(grad: torch.Tensor, last: dict, out_proj: torch.nn.Module) -> torch.Tensor:
    """The authors' ``grad_eclip`` (with the key similarity, their default): (texts, patches)."""
    grad_cls = grad[:, :1]  # the class token's gradient, (texts, 1, width)
    q_out, k_out = out_proj(last["q"]), out_proj(last["k"])  # query and key read through the output projection
    cosine = (F.normalize(q_out[:, :1], dim=-1) * F.normalize(k_out[:, 1:], dim=-1)).sum(-1)
    low, high = cosine.min(dim=1, keepdim=True).values, cosine.max(dim=1, keepdim=True).values
    cosine = (cosine - low) / (high - low)
    return F.relu((grad_cls * last["v"][:, 1:] * cosine[..., None]).sum(-1)).detach()


def references(encoder: DualEncoder, image: Any, captions: Sequence[str]) -> dict[str, torch.Tensor]:
    """Every reference map of ``image`` for each caption: ``{name: (texts, patches)}``, and the text rollouts
    ``{name: (texts, tokens)}`` (rows of R at the EOT token)."""
    model = encoder.model
    pixels = encoder.preprocess(image.convert("RGB")).repeat(len(captions), 1, 1, 1)
    ids = encoder.tokenizer(list(captions))
    scale = model.logit_scale.exp().detach()
    out = {}
    with torch.enable_grad():
        image_feature, record = image_forward(model, pixels)
        text_feature, text_record = text_forward(model, ids)
        with torch.no_grad():  # the written-out towers are the model's
            assert torch.allclose(image_feature, model.encode_image(pixels), atol=1e-4)
            assert torch.allclose(text_feature, model.encode_text(ids), atol=1e-4)
        image_feature, text_feature = F.normalize(image_feature, dim=-1), F.normalize(text_feature, dim=-1)
        cosine = image_feature @ text_feature.T  # (images, texts): each copy of the image with each text
        logits_per_image = scale * cosine
        image_probs, text_probs = [r["probs"] for r in record], [r["probs"] for r in text_record]
        blocks = len(image_probs)
        grads = torch.autograd.grad(logits_per_image.diagonal().sum(), [*image_probs, *text_probs], retain_graph=True)
        grads_cos = torch.autograd.grad(cosine.diagonal().sum(), [*image_probs, record[-1]["mixed"]])
        out["rollout.logit"] = chefer_rollout(image_probs, grads[:blocks], 0)[:, 0, 1:]
        out["rollout.logit_last"] = chefer_rollout(image_probs, grads[:blocks], blocks - 1)[:, 0, 1:]
        out["rollout.cosine"] = chefer_rollout(image_probs, grads_cos[:blocks], 0)[:, 0, 1:]
        text_rollout = [chefer_rollout(text_probs, grads[blocks:], s) for s in (0, len(text_probs) - 1)]
        eot = ids.argmax(dim=-1)
        for name, rollout in zip(("tokens.rollout_first", "tokens.rollout_last"), text_rollout):
            out[name] = rollout[torch.arange(len(ids)), eot]
        three_head = grads_cos[-1]
        last_out_proj = model.visual.transformer.resblocks[-1].attn.out_proj
        with torch.no_grad():
            out["grad_eclip.three_head"] = authors_grad_eclip(three_head, record[-1], last_out_proj)
        image_feature, record = image_forward(model, pixels, one_head_last=True)  # the authors' forward
        cosine = (F.normalize(image_feature, dim=-1) * text_feature.detach()).sum(-1)
        one_head = torch.autograd.grad(cosine.sum(), record[-1]["mixed"])[0]
        with torch.no_grad():
            out["grad_eclip.authors"] = authors_grad_eclip(one_head, record[-1], last_out_proj)
    out["eot"] = eot
    return out


def project(encoder: DualEncoder, image: Any, captions: Sequence[str]) -> dict[str, Any]:
    """The project's maps (texts, patches) and token shares, from its own explainers as the page runs them."""
    last = len(encoder.model.visual.transformer.resblocks) - 1
    runs = {"rollout": get_explainer("rollout", encoder, start=0), "rollout_last": get_explainer("rollout", encoder,
            start=last), "grad_eclip.paper": get_explainer("grad-eclip", encoder, loose=True),
            "grad_eclip.default": get_explainer("grad-eclip", encoder, loose=False)}
    out = {}
    for name, explainer in runs.items():
        found = explainer.relevance(image, list(captions))
        out[name] = torch.tensor(np.stack([r.grid.reshape(-1) for r in found]))
        out.setdefault("shares", [r.shares for r in found])
    return out


def _pearson(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a - a.mean(), b - b.mean()
    norm = np.sqrt((a * a).sum() * (b * b).sum())
    return float((a * b).sum() / norm) if norm > 0 else float("nan")


def item_readings(encoder: DualEncoder, image: Any, texts: Sequence[str]) -> dict[str, list[tuple[float, bool]]]:
    """``{comparison: [(r, same peak)] per text}`` for ``image`` with each of ``texts``."""
    ref, mine = references(encoder, image, texts), project(encoder, image, texts)
    pairs = {"rollout.logit": (mine["rollout"], ref["rollout.logit"]),
             "rollout.cosine": (mine["rollout"], ref["rollout.cosine"]),
             "rollout.logit_last": (mine["rollout_last"], ref["rollout.logit_last"]),
             "grad_eclip.paper": (mine["grad_eclip.paper"], ref["grad_eclip.authors"]),
             "grad_eclip.default": (mine["grad_eclip.default"], ref["grad_eclip.authors"]),
             "grad_eclip.gradient_only": (ref["grad_eclip.three_head"], ref["grad_eclip.authors"]),
             "grad_eclip.qk_only": (mine["grad_eclip.paper"], ref["grad_eclip.three_head"])}
    out: dict[str, list[tuple[float, bool]]] = {}
    for name, (a, b) in pairs.items():
        a, b = a.float().numpy(), b.float().numpy()
        out[name] = [(_pearson(x, y), int(x.argmax()) == int(y.argmax())) for x, y in zip(a, b)]
    for name in TEXT_PAIRS:  # the content tokens: after the start token, before EOT
        out[name] = []
        for row, (shares, eot) in enumerate(zip(mine["shares"], ref["eot"].tolist())):
            rollout = ref[name][row, 1:eot].numpy()
            if len(shares) == len(rollout) and len(shares) > 1:
                out[name].append((_pearson(shares, rollout), int(shares.argmax()) == int(rollout.argmax())))
    return out


def _mean_interval(values: np.ndarray) -> list[float]:
    """The 95% percentile bootstrap interval of the mean of ``values`` (one per item), resampling items."""
    rows = np.random.default_rng(intervals.SEED).integers(0, len(values), size=(intervals.RESAMPLES, len(values)))
    tail = 100 * (1 - intervals.LEVEL) / 2
    return [round(float(v), 4) for v in np.percentile(values[rows].mean(axis=1), [tail, 100 - tail])]


def summarize(readings: list[dict[str, list[tuple[float, bool]]]]) -> dict[str, dict]:
    """Each comparison's mean r and peak agreement (%) over items (an item's maps averaged), with intervals."""
    out = {}
    for name in [*IMAGE_PAIRS, *TEXT_PAIRS]:
        per_item = [[(r, same) for r, same in item[name] if not np.isnan(r)] for item in readings]
        per_item = [rows for rows in per_item if rows]
        r = np.array([np.mean([v for v, _ in rows]) for rows in per_item])
        same = np.array([np.mean([s for _, s in rows]) for rows in per_item])
        maps = sum(len(item[name]) for item in readings)
        out[name] = {"what": {**IMAGE_PAIRS, **TEXT_PAIRS}[name], "r": round(float(r.mean()), 4),
                     "r_ci": _mean_interval(r), "argmax_agreement": round(float(100 * same.mean()), 2),
                     "argmax_agreement_ci": intervals.percent_intervals(same)[0], "items": len(per_item),
                     "maps": maps, "maps_without_r": maps - sum(len(rows) for rows in per_item)}
    return out


def segment_texts(captions: Sequence[str]) -> tuple[str, ...]:
    """The prompts the page maps for each caption's segments ("a red square"), both captions' in turn."""
    return tuple(prompt for c in captions for seg, prompt in segment_prompts(c) if seg.kind != "caption")


def chosen_items(items: int, split: str = SPLIT) -> list[Any]:
    """``items`` swap items of ``split``, the kinds taken in turn."""
    per_kind = -(-items // len(world.KINDS))
    pool = [world.swap_items(split, kind, per_kind) for kind in world.KINDS]
    return [found[i] for i in range(per_kind) for found in pool if i < len(found)][:items]


def measure(encoder: DualEncoder, items: int, split: str = SPLIT) -> dict[str, dict[str, dict]]:
    """Every comparison over ``items`` swap items of ``split`` (the kinds taken in turn), for the whole captions and
    for their segments' prompts: ``{"captions": {comparison: ...}, "segments": {...}}``."""
    _check(encoder.model)
    torch.manual_seed(SEED)
    out: dict[str, list] = {"captions": [], "segments": []}
    for item in chosen_items(items, split):
        image = item.images[0].render(encoder.image_size)
        out["captions"].append(item_readings(encoder, image, item.captions))
        out["segments"].append(item_readings(encoder, image, segment_texts(item.captions)))
    return {scope: summarize(readings) for scope, readings in out.items()}


def markdown(report: dict) -> str:
    """The record's rows as docs/explanations.md shows them: each comparison on the whole captions and on their
    segments' prompts."""
    f = report["figures"]

    def cell(scope: str, name: str) -> str:
        x = f[scope][name]
        return (f"{x['r']:.3f} [{x['r_ci'][0]:.3f}, {x['r_ci'][1]:.3f}] | {x['argmax_agreement']:.1f} "
                f"[{x['argmax_agreement_ci'][0]:.1f}, {x['argmax_agreement_ci'][1]:.1f}]")

    def n(name: str) -> str:
        return f"{f['captions'][name]['maps']} / {f['segments'][name]['maps']}"

    head = ("| explainer | reference | what differs | captions: r | captions: same peak % | segments: r "
            "| segments: same peak % | maps (captions / segments) |\n|---|---|---|---|---|---|---|---|")
    return "\n".join([head, *(f"| {a} | {b} | {c} | {cell('captions', name)} | {cell('segments', name)} | {n(name)} |"
                              for a, b, c, name in ROWS)]) + "\n"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=50, help="world swap items, the kinds in turn (default 50)")
    parser.add_argument("--split", default=SPLIT, help="the world split they come from (default %(default)s)")
    parser.add_argument("--json", help="also write the record here")
    args = parser.parse_args(argv)
    encoder = DualEncoder()
    model = encoder.model
    command = (f"python scripts/explainer_references.py --items {args.items}"
               + (f" --split {args.split}" if args.split != SPLIT else "")
               + (f" --json {args.json}" if args.json else ""))
    report = {"command": command, "model": encoder.label, "machine": speed_report.machine(), "precision": "fp32",
              "split": args.split, "items": args.items, "seed": SEED,
              "maps": "each item's first picture with its two captions, and with their segments' prompts",
              "logit_scale": round(float(model.logit_scale.detach().exp()), 2),
              "image_blocks": len(model.visual.transformer.resblocks),
              "image_heads": model.visual.transformer.resblocks[-1].attn.num_heads,
              "text_blocks": len(model.transformer.resblocks),
              "interval": {**intervals.METHOD, "unit": "items (each the mean of its maps)"},
              "figures": measure(encoder, args.items, args.split)}
    print(markdown(report))
    return speed_report.emit(report, args.json)


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    main()
