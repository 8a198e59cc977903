"""SGI's step of the guided tour: what to look for under the table, and what its segments score on the example."""

from __future__ import annotations

from PIL import Image

from explorer.world.tour import Compared, Step, overlap, prefers


def sgi_finding(image: Image.Image, analysis: Compared) -> str:
    """Each segment's best-region cosine, the lowest and highest of them, a segment of B that settles on the region a
    segment of A found (and the words they share), and the caption SGI prefers: all read from ``analysis``."""
    if "sgi" not in analysis.scores:
        return "This page runs no SGI: there is nothing of it to see here."
    matches = {w: s.evidence.matches for w, s in zip("AB", analysis.scores["sgi"])}
    listed = "; ".join(f"{w}: " + ", ".join(f"'{m.segment.text}' {m.similarity:.3f}" for m in ms)
                       for w, ms in matches.items())
    every = [(w, m) for w, ms in matches.items() for m in ms]
    (lw, low), (hw, high) = (f(every, key=lambda wm: wm[1].similarity) for f in (min, max))
    said = [f"**On this picture, {analysis.model}**: {listed}. The lowest is {lw}'s '{low.segment.text}' "
            f"({low.similarity:.3f}), the highest {hw}'s '{high.segment.text}' ({high.similarity:.3f})."]
    regions = {w: s.evidence.regions for w, s in zip("AB", analysis.scores["sgi"])}
    for m in matches["B"]:
        for am in matches["A"]:
            box, abox = regions["B"][m.crop].box, regions["A"][am.crop].box
            shared = [word for word in m.segment.text.split() if word in am.segment.text.split()]
            if m.segment.text != am.segment.text and shared and overlap(box, abox) >= 0.5:
                said.append(f"B's '{m.segment.text}' settles on the region A's '{am.segment.text}' found, matching "
                            f"it on '{' '.join(shared)}' alone, at {m.similarity:.3f}.")
    weakest = min(matches["B"], key=lambda m: m.similarity)
    said.append(f"SGI scores a caption by its segments' mean and {prefers(analysis, 'sgi')}"
                + (f": B loses on its weakest segment, '{weakest.segment.text}'." if
                   analysis.scores["sgi"][0].value > analysis.scores["sgi"][1].value else "."))
    return " ".join(said)


STEP = Step("SGI matches each phrase to a region", "main",
            "Under the table: each segment of a caption ('red square') takes the region that matches it best, drawn "
            "on the picture, and SGI scores a caption by its segments' mean. The heat map shows every segment against "
            "the top regions, the best one boxed.", sgi_finding, target="overlay-a")
