"""A guided tour for teaching: a few steps over the world's examples, each naming its example, the tab to look at
and what to look for there. A step whose claim hangs on the model says it from its example's own comparison on the
loaded model (``Step.says``), so its words say what the page's picture shows."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Mapping, Protocol, Sequence

from PIL import Image

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
    finding: Callable[[Image.Image, Compared], str] | None = None  # what the example's comparison shows, in words
    example: str = EXAMPLE  # an example's name (``explorer.world.examples``)
    target: str = ""  # the page's element it points at ("panel>element" inside a closed panel); "": its tab's own

    def says(self, shown: Shown | None = None) -> str:
        """What to look at, then what ``shown`` (the page's comparison, when it is this step's example's) shows."""
        if self.finding is None:
            return self.look
        if shown is None or not shows_example(self, shown):
            return f"{self.look}\n\n{PENDING}"
        return f"{self.look}\n\n{self.finding(*shown)}"


def shows_example(step: Step, shown: Shown) -> bool:
    """Whether ``shown`` is the comparison of ``step``'s example: its captions on its picture."""
    image, analysis = shown
    found = [e for e in examples() if e.name == step.example]
    if not found or analysis.captions != (found[0].caption_a, found[0].caption_b):
        return False
    with Image.open(found[0].path) as opened:
        picture = opened.convert("RGB")
    return picture.size == image.size and picture.tobytes() == image.convert("RGB").tobytes()


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


WHY = Step("Why: a bag of concepts", "binding",
           "Press 'Analyze the loaded model'. 'R2 object ~ colour + shape' near 100 means each object's embedding "
           "is almost its colour's plus its shape's: swap the colours between two objects and the sum barely moves. "
           "In the plot, each observed object (filled) sits next to its colour + shape sum (hollow).")
IMAGE_SIDE = Step("The same model fails the image side too", "main",
                  "Open 'Draw a picture, have captions proposed, and see both sides of the swap' under the results "
                  "and press 'Make image B and score both sides': the page recolours the picture so that caption B "
                  "describes it, and scores both pictures with both captions. The text score asks each picture to "
                  "prefer its own caption, the image score each caption to prefer its own picture, the group score "
                  "both. Where the global cosine cannot tell the captions apart on one picture, it cannot tell the "
                  "pictures apart for one caption either.", target="draw-and-swap>make-b")


def steps(methods: Sequence[Step]) -> tuple[Step, ...]:
    """The tour, numbered: the first method's step (the baseline's), why it fails (the binding tab), every other
    method's step in turn, then the image side of the swap."""
    ordered = [*methods[:1], WHY, *methods[1:], IMAGE_SIDE]
    return tuple(replace(step, title=f"{i}. {step.title}") for i, step in enumerate(ordered, 1))
