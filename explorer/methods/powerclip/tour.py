"""PowerCLIP's step of the guided tour: each swapped phrase's best subset on the example, and what a false phrase
matching better means."""

from __future__ import annotations

from PIL import Image

from explorer.world.tour import Compared, Step, prefers


def powerclip_finding(image: Image.Image, analysis: Compared) -> str:
    """Each noun phrase of A beside B's phrase in its place, with its best subset's cosine, and what a false phrase
    matching better means; then the caption PowerCLIP prefers: all read from ``analysis``."""
    if "powerclip" not in analysis.scores:
        return "This page runs no PowerCLIP: there is nothing of it to see here."
    phrases = [[al for al in s.evidence.alignments if al.node.label == "NP"] for s in analysis.scores["powerclip"]]
    pairs = [(x, y) for x, y in zip(*phrases) if x.node.text != y.node.text]
    said = [f"A's '{x.node.text}' {x.exact:.3f} against B's '{y.node.text}' {y.exact:.3f}" for x, y in pairs]
    out = f"**On this picture, {analysis.model}**, each swapped phrase's best subset: " + "; ".join(said) + "."
    wrong = [(x, y) for x, y in pairs if y.exact > x.exact]
    if wrong:
        x, y = max(wrong, key=lambda p: p[1].exact - p[0].exact)
        out += (f" B's '{y.node.text}' names an object the picture does not show, yet its best subset matches it "
                f"better ({y.exact:.3f}) than A's true '{x.node.text}' matches its own ({x.exact:.3f}): each phrase "
                f"takes the best of many sets of regions, and one of them can fit a false phrase, so a high cosine "
                f"for one phrase is no sign that the picture shows it.")
    return out + f" PowerCLIP scores a caption by all its phrases together and {prefers(analysis, 'powerclip')}."


STEP = Step("PowerCLIP aligns phrases with sets of regions", "powerclip",
            "Each node of the caption's phrase tree takes the subset of regions whose pooled features match it best. "
            "Pick a noun phrase in A and in B and compare where their subsets lie and how well they match.",
            powerclip_finding, target="powerclip-table")
