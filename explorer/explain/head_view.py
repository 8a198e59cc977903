"""The page's heads panel, without gradio: for a picture and two captions, each head's share of the margin (layer x
head), one head's map over the picture, its TextSpan texts, what mean-ablating it does to this picture's margin, and
the recorded ablation on the world's swaps in a sentence."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from explorer.core.image_state import ImageState
from explorer.explain.head_shares import HeadShares, head_shares, image_parts, text_units
from explorer.explain.textspan import HeadTexts, head_data, head_texts
from explorer.models.encoders import DualEncoder

RECORDS = Path(__file__).resolve().parents[2] / "docs" / "results" / "explanations"  # the checkout's records
WHERE = "docs/results/explanations/heads-*.json"


@dataclass(frozen=True)
class HeadView:
    """What the panel shows: the shares, the head chosen (layer, head), its map (h, w) in cosine units per patch, its
    texts with the share of the head's variance each explains, and the margin after mean-ablating it."""

    shares: HeadShares
    head: tuple[int, int]
    map: np.ndarray
    texts: tuple[str, ...]
    explained: tuple[float, ...]
    ablated_margin: float
    pictures: int  # the world pictures TextSpan and the ablation's mean read


def head_menu(shares: HeadShares) -> list[tuple[str, str]]:
    """(label, value) of every head, largest share in size first: "layer 3, head 1 (+0.012)", "3.1"."""
    return [(f"layer {l}, head {h} ({shares.shares[l, h]:+.4f})", f"{l}.{h}") for l, h in
            shares.top(shares.shares.size)]


def parse_head(value: str | None, shares: HeadShares) -> tuple[int, int]:
    """The head a menu value names; the largest share's where it names none this model has."""
    try:
        layer, head = (int(v) for v in str(value).split("."))
        if 0 <= layer < shares.shares.shape[0] and 0 <= head < shares.shares.shape[1]:
            return layer, head
    except ValueError:
        pass
    return shares.top(1)[0]


def ablated_margin(encoder: DualEncoder, state: ImageState, captions: tuple[str, str], head: tuple[int, int],
                   mean: torch.Tensor) -> float:
    """cos(A) - cos(B) with the head's part replaced by ``mean`` (D,)."""
    parts = image_parts(encoder, state)
    e = parts.embedding - parts.head_totals[head] + mean.to(parts.embedding)
    cos = text_units(encoder, captions).to(e) @ F.normalize(e, dim=0)
    return float(cos[0] - cos[1])


def head_view(encoder: DualEncoder, state: ImageState, captions: tuple[str, str], value: str | None) -> HeadView:
    """The panel's reading of one head (``value``, a menu value; the largest share's head where None)."""
    shares = head_shares(encoder, state, captions)
    head = parse_head(value, shares)
    found: HeadTexts = head_texts(encoder, captions)
    data = head_data(encoder)
    mean = torch.from_numpy(data[:, head[0], head[1]].mean(0))
    k = len(found.texts[head[0]][head[1]])
    return HeadView(shares, head, shares.maps[head], found.texts[head[0]][head[1]],
                    tuple(float(v) for v in found.explained[head][:k]),
                    ablated_margin(encoder, state, captions, head, mean), len(data))


def ablation_sentence(view: HeadView) -> str:
    """What mean-ablating the chosen head does to this picture's margin, in a sentence."""
    before, after = view.shares.margin, view.ablated_margin
    side = lambda m: "A" if m > 0 else "B" if m < 0 else "neither caption"  # noqa: E731
    turn = "stays with" if side(before) == side(after) else "turns to"
    layer, head = view.head
    return (f"Mean-ablating layer {layer}, head {head} (its part replaced by its mean over {view.pictures} world "
            f"pictures) moves this picture's margin cos(A) - cos(B) from {before:+.4f} to {after:+.4f}: the verdict "
            f"{turn} {side(after)}.")


def recorded_sentence(model: str) -> str:
    """The recorded ablation on the world's swaps for ``model`` (its label), in a sentence; "" where none is kept."""
    for path in sorted(RECORDS.glob("heads-*.json")):
        record = json.loads(path.read_text())
        if record.get("model") != model:
            continue
        said = []
        for split, kinds in record["results"].items():
            for kind, cell in kinds.items():
                a = cell["ablation"]
                top, rnd = a["top"].get("8") or {}, a["random"].get("8") or {}
                if top and rnd:
                    said.append(f"from {a['none']['group']:.1f}% to {top['group']:.1f}% on {split}/{kind} (8 "
                                f"random heads: {rnd['group']:.1f}%)")
        if said:
            return (f"Recorded on the world's swaps (`{path.name}`, {record['limit']} items a split and kind): "
                    f"mean-ablating the 8 heads with the largest shares on validation takes the group score "
                    + "; ".join(said) + ".")
    return ""
