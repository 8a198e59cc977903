"""The heads record (``python -m explorer heads --json``) as the tables ``docs/heads.md`` shows: the ablation curve
per split and kind, and the heads with the largest mean shares beside their null."""

from __future__ import annotations

import json
from pathlib import Path

RECORDS = Path(__file__).resolve().parents[2] / "docs" / "results" / "explanations"  # the checkout's records


def _ci(ci: list[float]) -> str:
    return f"[{ci[0]:g}, {ci[1]:g}]"


def ablation_table(record: dict) -> str:
    """A row per split and kind: the margin, the group score unablated, after the top k heads and after k random
    heads (their mean and 2.5 to 97.5% range over the draws), k = 1, 2, 4, 8."""
    ks = record["ablation"]["ks"]
    head = ["split / kind", "items", "margin (points)", "group, none", *(f"top {k} / random {k}" for k in ks)]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for split, kinds in record["results"].items():
        for kind, cell in kinds.items():
            a = cell["ablation"]
            pairs = [f"{a['top'][str(k)]['group']:g} / {a['random'][str(k)]['group']:g} "
                     f"{_ci(a['random'][str(k)]['range'])}" for k in ks if str(k) in a["top"]]
            rows.append(f"| {split} / {kind} | {cell['items']} | {cell['margin']:g} | {a['none']['group']:g} "
                        f"{_ci(a['none']['ci'])} | " + " | ".join(pairs) + " |")
    return "\n".join(rows)


def heads_table(record: dict, n: int = 3) -> str:
    """Per split and kind, the ``n`` heads with the largest mean shares in size: share with its interval, the null's
    range, p and Holm's adjusted p."""
    rows = ["| split / kind | head (layer.head) | share (points) [95%] | null range | p | p adjusted |",
            "|---|---|---|---|---|---|"]
    for split, kinds in record["results"].items():
        for kind, cell in kinds.items():
            for h in sorted(cell["heads"], key=lambda h: -abs(h["share"]))[:n]:
                rows.append(f"| {split} / {kind} | {h['layer']}.{h['head']} | {h['share']:g} {_ci(h['ci'])} | "
                            f"{_ci(h['null']['range'])} | {h['null']['p']:g} | {h['null']['p_adjusted']:g} |")
    return "\n".join(rows)


def tables(name: str) -> str:
    """Both tables of the record ``docs/results/explanations/heads-NAME.json``."""
    record = json.loads((RECORDS / f"heads-{name}.json").read_text())
    return f"{ablation_table(record)}\n\n{heads_table(record)}\n"
