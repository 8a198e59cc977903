"""Each caption segment with the words an encoder reads for it ("a black dog", "a dog on a sofa"): what SGI scores
and the explainers map per segment."""

from __future__ import annotations

from typing import Sequence

from explorer.language import text


def segment_prompts(caption: str) -> list[tuple[text.Segment, str]]:
    """Each segment with the words the encoder reads for it: "a black dog", "a dog on a sofa"."""
    doc = text.parse(caption)
    out = []
    for seg in text.segments(caption):
        if seg.kind == "caption":
            out.append((seg, caption))
            continue
        keep = set(seg.tokens)
        if seg.kind == "relation":
            first, last = min(seg.tokens), max(seg.tokens)
            mods = {m.i for k in (first, last) for m in text.modifiers(doc[k])}
            keep = {i for i in range(first, last + 1) if i not in mods}
        heads = [doc[i] for i in keep if doc[i].pos_ in ("NOUN", "PROPN")]
        dets = {c.i for h in heads for c in h.lefts if c.dep_ in ("det", "poss", "nummod")}
        words = [doc[i].text for i in sorted(keep | dets)]
        out.append((seg, " ".join(text.articles_agreeing(words))))  # "an orange star on ..." -> "a star on ..."
    return out


def prompts_of(captions: Sequence[str]) -> list[str]:
    """Every segment prompt of the captions (their parses made together): what SGI will encode of them."""
    text.parse_many(captions)
    return [p for c in captions for _, p in segment_prompts(c)]
