"""A guided tour for teaching: a few steps over the world's examples, each naming its example, the tab to look at
and what to look for there. A step whose claim hangs on the model says it from its example's own comparison on the
loaded model (``Step.says``), so its words say what the page's picture shows."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping, Protocol, Sequence

import numpy as np
from PIL import Image

from explorer import world
from explorer.world.examples import examples

EXAMPLE = "world: attribute swap (id)"  # a red and a blue object, and captions that swap their colours


class Compared(Protocol):
    """What a step reads of a comparison (the engine's ``Analysis`` is one): both captions, the model's label, and
    each method's two scores (``value``, and the method's own ``evidence``) by its name."""

    captions: tuple[str, str]
    model: str
    scores: Mapping[str, Sequence]


Shown = tuple[Image.Image, Compared]  # the page's comparison: the image as read, and its analysis
PENDING = "*What this example shows on the loaded model appears here once the page has compared it.*"


@dataclass(frozen=True)
class Step:
    title: str  # numbered by its place in the tour (``steps``)
    tab: str  # the page's tab id (a method's tab: the method's name)
    look: str  # what to look at, in a few sentences
    finding: Callable[..., str] | None = None  # what the example's comparison shows, in words
    example: str = EXAMPLE  # an example's name (``explorer.world.examples``)
    target: str = ""  # the page's element it points at ("panel>element" inside a closed panel); "": its tab's own
    needs: str = ""  # a result the finding reads besides the comparison (a key of ``NEEDS``), passed after it

    def says(self, shown: Shown | None = None, extra: Any = None) -> str:
        """What to look at, then what ``shown`` (the page's comparison, when it is this step's example's) shows, with
        ``extra`` (the result the step ``needs``, when it is of the example) where it needs one."""
        if self.finding is None:
            return self.look
        if shown is None or not shows_example(self, shown):
            return f"{self.look}\n\n{PENDING}"
        if self.needs and not NEEDS[self.needs][0](self, shown, extra):
            return f"{self.look}\n\n{NEEDS[self.needs][1]}"
        return f"{self.look}\n\n{self.finding(*shown, *((extra,) if self.needs else ()))}"


def shows_example(step: Step, shown: Shown) -> bool:
    """Whether ``shown`` is the comparison of ``step``'s example: its captions on its picture."""
    image, analysis = shown
    found = [e for e in examples() if e.name == step.example]
    if not found or analysis.captions != (found[0].caption_a, found[0].caption_b):
        return False
    with Image.open(found[0].path) as opened:
        picture = opened.convert("RGB")
    return picture.size == image.size and picture.tobytes() == image.convert("RGB").tobytes()


# What a step may need besides its comparison: whether ``extra`` is there for it, and what to do while it is not.
# "binding": the binding tab's (model label, ``ModelReading``); "swap": the 2 x 2's ``SwapResult`` of the example.
NEEDS: dict[str, tuple[Callable[[Step, Shown, Any], bool], str]] = {
    "binding": (lambda step, shown, extra: extra is not None,
                "*What the loaded model does with this example's objects appears here once 'Analyze the loaded "
                "model' has run.*"),
    "swap": (lambda step, shown, extra: extra is not None and shows_example(step, (extra.image_a, extra.analysis_a)),
             "*What both sides of this example's swap show appears here once 'Make image B and score both sides' "
             "has run on it.*"),
}


def overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    """How much of the smaller box lies in the other one (0 to 1)."""
    w, h = min(a[2], b[2]) - max(a[0], b[0]), min(a[3], b[3]) - max(a[1], b[1])
    area = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return max(w, 0) * max(h, 0) / area if area > 0 else 0.0


def prefers(analysis: Compared, method: str) -> str:
    """The caption ``method`` scores higher, with both scores."""
    a, b = (s.value for s in analysis.scores[method])
    said = "A" if a > b else "B" if b > a else "neither caption"
    return f"prefers {said} ({a:.3f} against {b:.3f})"


def _objects(caption: str) -> list[tuple[str, str]]:
    """The world's objects a caption names (a colour word before a shape word), in its order."""
    words = caption.lower().replace(",", " ").split()
    return [(c, s) for c, s in zip(words, words[1:]) if c in world.COLORS and s in world.SHAPES]


def _listed(objects: list[tuple[str, str]]) -> str:
    return " and ".join(f"{world.article(c)} {c} {s}" for c, s in objects)


def binding_finding(image: Image.Image, analysis: Compared, found: tuple[str, Any]) -> str:
    """Where the binding tab's model (``found``: its label and reading) puts the scene of the example's objects
    (caption A's) and the scene of its swap (caption B's) among the tab's scenes, and how much of each object its
    colour plus its shape explains, beside chance: all read from ``found``."""
    label, reading = found
    table, fit = reading.tables["image"], reading.readings["image"]["r2.concepts"]
    named = [_objects(c) for c in analysis.captions]
    said = (f"'R2 object ~ colour + shape' is {fit['value']:.1f} here, and an encoder that cannot bind scores "
            f"{fit['null']['mean']:.1f}: " + ("above what such an encoder scores." if fit["reading"] == "above chance"
                                              else "by itself no sign of binding."))
    colours, shapes = list(world.COLORS), list(world.SHAPES)
    index = {frozenset((colours[c], shapes[s]) for c, s in pair): i for i, pair in enumerate(table.pairs)}
    scene, swapped = (index.get(frozenset(objects)) for objects in named)
    if scene is None or swapped is None or scene == swapped:
        return f"**On {label}**: {said} The tab's scenes hold no swap of this example's objects."
    unit = table.embeddings / np.linalg.norm(table.embeddings, axis=1, keepdims=True)
    cosine = np.delete(unit @ unit[scene], scene)
    swap = cosine[swapped - (swapped > scene)]
    nearer = int((cosine > swap).sum())
    where = ("no other scene lies nearer to it than its swap: the embedding holds which colours and shapes are "
             "there far more than which goes with which" if nearer == 0 else
             f"{nearer} of the other {len(cosine)} scenes lie nearer to it than its swap")
    return (f"**On {label}**: the tab's picture of {_listed(named[0])} (caption A's objects) and the picture of its "
            f"swap, {_listed(named[1])}, have image embeddings at cosine {swap:.3f}, while the other {len(cosine)} "
            f"scenes lie at {cosine.mean():.3f} from it on average: {where}. {said}")


def _yes(holds: bool) -> str:
    return "yes" if holds else "no"


def image_side_finding(image: Image.Image, analysis: Compared, swap: Any) -> str:
    """Both captions' scores on image A and on the image B the page made (``swap``), by the global cosine and SGI,
    and the text and image scores the page's 2 x 2 gives them: all read from ``swap``."""
    said = [f"**On both pictures, {swap.analysis_a.model}** (image B: {'; '.join(swap.changed)}):"]
    verdicts, outcomes = {}, swap.outcomes()
    for name, label in (("global", "the global cosine"), ("sgi", "SGI")):
        if name not in swap.analysis_a.scores:
            continue
        (aa, ba), (ab, bb) = ((s.value for s in side.scores[name]) for side in (swap.analysis_a, swap.analysis_b))
        text, own = bool(outcomes[name].text), bool(outcomes[name].image)
        verdicts[name] = (text, own)
        said.append(f"{label} scores caption A {aa:.3f} on image A and {ab:.3f} on image B, caption B {ba:.3f} and "
                    f"{bb:.3f}: " + ("each picture prefers its own caption" if text else
                                     "a picture does not prefer its own caption") + f" (text score {_yes(text)}), "
                    + ("each caption its own picture" if own else "a caption does not prefer its own picture")
                    + f" (image score {_yes(own)}).")
    if verdicts.get("global") == (False, False):
        said.append("The global cosine cannot tell the captions apart on one picture, nor the pictures apart for one "
                    "caption.")
    return " ".join(said)


WHY = Step("Why: a bag of concepts", "binding",
           "Press 'Analyze the loaded model'. 'R2 object ~ colour + shape' near 100 means each object's embedding "
           "is almost its colour's plus its shape's: swap the colours between two objects and the sum barely moves. "
           "In the plot, each observed object (filled) sits next to its colour + shape sum (hollow).", binding_finding,
           needs="binding")
IMAGE_SIDE = Step("The same model fails the image side too", "main",
                  "Open 'Draw a picture, have captions proposed, and see both sides of the swap' under the results "
                  "and press 'Make image B and score both sides': the page recolours the picture so that caption B "
                  "describes it, and scores both pictures with both captions. The text score asks each picture to "
                  "prefer its own caption, the image score each caption to prefer its own picture, the group score "
                  "both.", image_side_finding, target="draw-and-swap>make-b", needs="swap")


def steps(methods: Sequence[Step]) -> tuple[Step, ...]:
    """The tour, numbered: the first method's step (the baseline's), why it fails (the binding tab), every other
    method's step in turn, then the image side of the swap."""
    ordered = [*methods[:1], WHY, *methods[1:], IMAGE_SIDE]
    return tuple(replace(step, title=f"{i}. {step.title}") for i, step in enumerate(ordered, 1))
