"""Which heads tell the world's swaps apart, and does the binding live in a few of them (``python -m explorer
heads``).

For each swap item (two pictures, each with its own caption and the other's as its foil), a head's share is the sum
over both pictures of its direct part's share of cos(own) - cos(foil) (``explorer.explain.head_shares``), in points
(hundredths of the cosine). Per split and kind:
- each head's mean share over items with a 95% percentile-bootstrap interval (``explorer.core.intervals``), beside a
  null: the same mean with the heads' parts of each item read against another item's captions (a random derangement
  of the items, ``DRAWS`` of them), its mean and 2.5 to 97.5% range, and a two-sided permutation p (Holm-adjusted over
  the heads);
- mean-ablation (the authors' ``compute_ablations.py``: a part replaced by its mean over the split's pictures, in the
  split of the embedding, the model not run again) of the top k heads, ranked by their mean share on the validation
  split of the same kind ("val-" + split), and of k heads drawn at random (``RANDOM_SETS`` draws), k = 1, 2, 4, 8:
  the group score (both pictures, both captions right) after each, with the unablated score beside them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import torch
from tqdm import tqdm

from explorer import world
from explorer.core import intervals
from explorer.core.items import Item
from explorer.eval.accuracy import outcome
from explorer.explain.head_shares import pixels_of, text_units
from explorer.explain.heads import decompose
from explorer.models.encoders import DualEncoder
from explorer.readings.significance import holm

log = logging.getLogger(__name__)

DRAWS = 2000  # derangements behind each head's null (the least p 1 / 2001)
RANDOM_SETS = 500  # random head sets per k of the ablation
KS = (1, 2, 4, 8)
SEED = 0
POINTS = 100.0  # shares in hundredths of the cosine


@dataclass(frozen=True)
class ItemHeads:
    """One item's pictures as the split reads them: ``totals`` (pictures, layers, heads, D) each head's part,
    ``embeddings`` (pictures, D) before normalisation, ``texts`` (captions, D) unit, ``own`` each picture's caption."""

    item: Item
    totals: torch.Tensor
    embeddings: torch.Tensor
    texts: torch.Tensor

    def directions(self, texts: torch.Tensor | None = None) -> torch.Tensor:
        """(pictures, D) each picture's (t_own - t_foil) / |e|, of this item's captions or another's ``texts``."""
        texts = self.texts if texts is None else texts
        rows = []
        for k, own in enumerate(self.item.right):
            foil = 1 - own
            rows.append((texts[own] - texts[foil]) / self.embeddings[k].norm())
        return torch.stack(rows)

    def shares(self, texts: torch.Tensor | None = None) -> np.ndarray:
        """(layers, heads) each head's share of the item's margins, in points."""
        return POINTS * torch.einsum("klhd,kd->lh", self.totals, self.directions(texts)).numpy()


def read_items(encoder: DualEncoder, items: Sequence[Item], desc: str = "") -> list[ItemHeads]:
    """Each two-picture, two-caption item split by ``encoder``'s model (one forward per item)."""
    out = []
    for item in tqdm(items, desc=desc, disable=not desc):
        if len(item.images) != 2 or len(item.captions) != 2:
            raise ValueError(f"item {item.id or item.category} is not a swap of two pictures and two captions")
        parts = decompose(encoder.model, pixels_of(encoder, item.pictures(encoder.image_size)))
        out.append(ItemHeads(item, torch.stack([p.head_totals for p in parts]).cpu(),
                             torch.stack([p.embedding for p in parts]).cpu(), text_units(encoder, item.captions).cpu()))
    return out


def _mean_ci(values: np.ndarray) -> tuple[float, list[float]]:
    """The mean over items and its 95% bootstrap interval (``values`` (items,) in points)."""
    ci = intervals.percent_intervals(values)[0]  # 100 times the mean's: points to 4 places
    return round(float(values.mean()), 4), [round(v / 100, 4) for v in ci]


def head_table(read: Sequence[ItemHeads], draws: int = DRAWS, seed: int = SEED) -> list[dict]:
    """Each head's mean share with its interval and its null (derangements of the items' captions)."""
    shares = np.stack([r.shares() for r in read])  # (items, layers, heads)
    # pairs[j, i]: item j's heads read against item i's captions (own minus foil is +-(t_0 - t_1) by each picture's own)
    signed = torch.stack([sum((1 - 2 * own) * r.totals[k] / r.embeddings[k].norm()
                              for k, own in enumerate(r.item.right)) for r in read])
    pairs = POINTS * torch.einsum("jlhd,id->jilh", signed, torch.stack([r.texts[0] - r.texts[1] for r in read])).numpy()
    rng, n = np.random.default_rng(seed), len(read)
    null = np.zeros((draws, *shares.shape[1:]))
    for d in range(draws):
        order = rng.permutation(n)
        while n > 1 and (order == np.arange(n)).any():
            order = rng.permutation(n)
        null[d] = pairs[order, np.arange(n)].mean(0)
    observed = shares.mean(0)
    rows, p = [], {}
    for layer, head in np.ndindex(*observed.shape):
        mean, ci = _mean_ci(shares[:, layer, head])
        column = null[:, layer, head]
        k = int((np.abs(column) >= abs(observed[layer, head]) - 1e-9).sum())
        name = f"{layer}.{head}"
        p[name] = (k + 1) / (draws + 1)
        low, high = np.percentile(column, [2.5, 97.5])
        rows.append({"layer": layer, "head": head, "share": mean, "ci": ci,
                     "null": {"mean": round(float(column.mean()), 4), "range": [round(float(low), 4),
                                                                                round(float(high), 4)],
                              "p": round(p[name], 4)}})
    adjusted = holm(p)
    for row in rows:
        row["null"]["p_adjusted"] = adjusted[f"{row['layer']}.{row['head']}"]
    return rows


def _stacked(read: Sequence[ItemHeads]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(items, pictures, layers, heads, D) the heads' parts, (items, pictures, D) the embeddings, (items, captions,
    D) the texts."""
    return (torch.stack([r.totals for r in read]), torch.stack([r.embeddings for r in read]),
            torch.stack([r.texts for r in read]))


def hits(read: Sequence[ItemHeads], stacked: tuple, ablated: Sequence[tuple[int, int]],
         mean: torch.Tensor) -> np.ndarray:
    """(items,) each item's group verdict with the ``ablated`` heads' parts replaced by ``mean`` (layers, heads, D)."""
    totals, e, texts = stacked
    if ablated:
        layers, heads = (list(v) for v in zip(*ablated))
        e = e - (totals[:, :, layers, heads] - mean[layers, heads]).sum(2)
    sims = torch.einsum("icd,ikd->ick", texts, torch.nn.functional.normalize(e, dim=-1)).numpy()
    return np.array([outcome(r.item, s).correct for r, s in zip(read, sims)])  # s (captions, pictures)


def group_score(read: Sequence[ItemHeads], ablated: Sequence[tuple[int, int]] = (),
                mean: torch.Tensor | None = None) -> tuple[float, list[float]]:
    """The group score (percent of items) with the ``ablated`` heads' parts replaced by ``mean`` (layers, heads, D;
    default their mean over every picture of ``read``), and its 95% interval over items."""
    stacked = _stacked(read)
    mean = stacked[0].mean((0, 1)) if mean is None else mean
    found = hits(read, stacked, ablated, mean)
    return round(100 * float(found.mean()), 2), intervals.percent_intervals(found)[0]


def ablation(read: Sequence[ItemHeads], ranked: Sequence[tuple[int, int]], draws: int = RANDOM_SETS,
             seed: int = SEED) -> dict:
    """The group score unablated, after mean-ablating the top k ``ranked`` heads, and after k random heads."""
    layers, heads = read[0].totals.shape[1:3]
    every = [(l, h) for l in range(layers) for h in range(heads)]
    rng = np.random.default_rng(seed)
    mean = torch.cat([r.totals for r in read]).mean(0)
    score, ci = group_score(read, (), mean)
    out = {"none": {"group": score, "ci": ci}, "top": {}, "random": {}}
    for k in KS:
        if k > len(every):
            continue
        score, ci = group_score(read, ranked[:k], mean)
        out["top"][str(k)] = {"heads": [list(h) for h in ranked[:k]], "group": score, "ci": ci}
        stacked = _stacked(read)
        found = [100 * hits(read, stacked, [every[i] for i in rng.choice(len(every), k, replace=False)], mean).mean()
                 for _ in range(draws)]
        low, high = np.percentile(found, [2.5, 97.5])
        out["random"][str(k)] = {"group": round(float(np.mean(found)), 2),
                                 "range": [round(float(low), 2), round(float(high), 2)], "draws": draws}
    return out


def ranking(read: Sequence[ItemHeads]) -> list[tuple[int, int]]:
    """The heads by their mean share, largest first (those pushing most towards each picture's own caption)."""
    mean = np.mean([r.shares() for r in read], axis=0)
    order = np.argsort(-mean, axis=None)
    return [tuple(int(i) for i in np.unravel_index(o, mean.shape)) for o in order]  # type: ignore[misc]


def heads_report(encoder: DualEncoder, splits: Sequence[str], kinds: Sequence[str], limit: int, command: str = "",
                 draws: int = DRAWS, write: Callable[[dict], None] | None = None, progress: bool = True) -> dict:
    """The reading per split and kind; the report so far is handed to ``write`` after each."""
    unknown = sorted(set(kinds) - set(world.KINDS))
    if unknown:
        raise ValueError(f"unknown kinds {unknown}; known: {', '.join(world.KINDS)}")
    results: dict[str, dict] = {}
    report = {"benchmark": "world", "model": encoder.label, "command": command, "splits": list(splits),
              "kinds": list(kinds), "limit": limit, "units": "points: hundredths of the cosine",
              "share": "a head's direct part's share of cos(own caption) - cos(foil), summed over an item's two "
                       "pictures (the authors' split of the final LayerNorm)",
              "interval": {**intervals.METHOD, "unit": "items"},
              "null": {"kind": "each item's head parts read against another item's captions (random derangements)",
                       "draws": draws, "p": "two-sided, (k + 1) / (draws + 1); p_adjusted: Holm over the heads"},
              "ablation": {"kind": "mean-ablation of the heads' direct parts (each replaced by its mean over the "
                                   "split's pictures), the model not run again",
                           "ranked_on": "val- + the split, same kind and limit", "ks": list(KS),
                           "random_draws": RANDOM_SETS},
              "results": results}
    for split in splits:
        for kind in kinds:
            say = f"{split}/{kind}" if progress else ""
            val = read_items(encoder, world.swap_items(world.VAL_PREFIX + split, kind, limit), f"val {say}" * bool(say))
            read = read_items(encoder, world.swap_items(split, kind, limit), say)
            margins = [float(sum(POINTS * (r.directions()[k] @ r.embeddings[k]) for k in range(2))) for r in read]
            results.setdefault(split, {})[kind] = {
                "items": len(read), "margin": _mean_ci(np.array(margins))[0],
                "heads": head_table(read, draws), "ablation": ablation(read, ranking(val))}
            if write:
                write(report)
    return report
