"""ARO's macro accuracy, as its authors report it: VG-Relation's mean over relations less those they call
symmetric, VG-Attribution's mean over attribute pairs seen 25 times or more (``dataset_zoo/aro_datasets.py``'s
``evaluate_scores`` records, averaged as the notebook "Replicate ARO! VG-Relation, VG-Attribution" of
mertyg/vision-language-models-are-bows does)."""

from __future__ import annotations

import logging
from collections import Counter
from typing import Sequence

from explorer.core.items import Item

log = logging.getLogger(__name__)
MIN_COUNT = 25  # VG_Attribution.evaluate_scores keeps an attribute pair seen this often or more
# The relations the authors' notebook leaves out of VG-Relation's macro accuracy: a swap of their two objects can be
# as true as the caption.
SYMMETRIC = frozenset((
    "adjusting", "attached to", "between", "bigger than", "biting", "boarding", "brushing", "chewing", "cleaning",
    "climbing", "close to", "coming from", "coming out of", "contain", "crossing", "dragging", "draped over",
    "drinking", "drinking from", "driving", "driving down", "driving on", "eating from", "eating in", "enclosing",
    "exiting", "facing", "filled with", "floating in", "floating on", "flying", "flying above", "flying in",
    "flying over", "flying through", "full of", "going down", "going into", "going through", "grazing in",
    "growing in", "growing on", "guiding", "hanging from", "hanging in", "hanging off", "hanging over",
    "higher than", "holding onto", "hugging", "in between", "jumping off", "jumping on", "jumping over", "kept in",
    "larger than", "leading", "leaning over", "leaving", "licking", "longer than", "looking in", "looking into",
    "looking out", "looking over", "looking through", "lying next to", "lying on top of", "making", "mixed with",
    "mounted on", "moving", "on the back of", "on the edge of", "on the front of", "on the other side of", "opening",
    "painted on", "parked at", "parked beside", "parked by", "parked in", "parked in front of", "parked near",
    "parked next to", "perched on", "petting", "piled on", "playing", "playing in", "playing on", "playing with",
    "pouring", "reaching for", "reading", "reflected on", "riding on", "running in", "running on",
    "running through", "seen through", "sitting behind", "sitting beside", "sitting by", "sitting in front of",
    "sitting near", "sitting next to", "sitting under", "skiing down", "skiing on", "sleeping in", "sleeping on",
    "smiling at", "sniffing", "splashing", "sprinkled on", "stacked on", "standing against", "standing around",
    "standing behind", "standing beside", "standing in front of", "standing near", "standing next to", "staring at",
    "stuck in", "surrounding", "swimming in", "swinging", "talking to", "topped with", "touching", "traveling down",
    "traveling on", "tying", "typing on", "underneath", "wading in", "waiting for", "walking across", "walking by",
    "walking down", "walking next to", "walking through", "working in", "working on", "worn on", "wrapped around",
    "wrapped in", "by", "of", "near", "next to", "with", "beside", "on the side of", "around",
))


def _pair(item: Item) -> str | None:
    """An attribution item's attribute pair as ``VG_Attribution`` names it (``"a_b"``), or None."""
    found = item.info.get("attributes")
    if isinstance(found, (list, tuple)) and len(found) == 2:
        return f"{found[0]}_{found[1]}"
    return None


def macro_groups(items: Sequence[Item]) -> list[str | None]:
    """Each item's group in its file's macro accuracy (its relation, or its attribute pair), None where the
    authors leave it out: a symmetric relation, an attribute pair seen fewer than 25 times, no such field."""
    pairs = [_pair(it) if it.kind == "VG-Attribution" else None for it in items]
    counts = Counter(p for p in pairs if p)
    groups: list[str | None] = []
    for item, pair in zip(items, pairs):
        if item.kind == "VG-Relation":
            relation = item.info.get("relation_name")
            groups.append(relation if isinstance(relation, str) and relation not in SYMMETRIC else None)
        else:
            groups.append(pair if pair and counts[pair] >= MIN_COUNT else None)
    for kind in sorted({it.kind for it in items}):
        if not any(g for it, g in zip(items, groups) if it.kind == kind):
            log.warning("ARO %s: no item counts in its authors' macro accuracy (%s); its cell is the pooled "
                        "accuracy", kind, "no relation_name outside the symmetric ones" if kind == "VG-Relation"
                        else f"no attribute pair seen {MIN_COUNT} times")
    return groups
