"""A guided tour for teaching: a few steps over the world's examples, each naming its example, the tab to look at
and what to look for there. A step whose claim hangs on the model says it from its example's own comparison on the
loaded model (``Step.says``), so its words say what the page's picture shows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from PIL import Image

from explorer import world
from explorer.world.examples import examples

# The engine's Analysis (a layer above this one, so not imported): captions, model, scores by method with evidence.
Analysis = Any
Shown = tuple[Image.Image, Analysis]  # the page's comparison: the image as read, and its analysis
PENDING = "*What this example shows on the loaded model appears here once the page has compared it.*"


@dataclass(frozen=True)
class Step:
    title: str
    example: str  # an example's name (``explorer.world.examples``)
    tab: str  # the page's tab id
    look: str  # what to look at, in a few sentences
    finding: Callable[..., str] | None = None  # what the example's comparison shows, in words
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


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    """How much of the smaller box lies in the other one (0 to 1)."""
    w, h = min(a[2], b[2]) - max(a[0], b[0]), min(a[3], b[3]) - max(a[1], b[1])
    area = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return max(w, 0) * max(h, 0) / area if area > 0 else 0.0


def _prefers(analysis: Analysis, method: str) -> str:
    a, b = (s.value for s in analysis.scores[method])
    said = "A" if a > b else "B" if b > a else "neither caption"
    return f"prefers {said} ({a:.3f} against {b:.3f})"


def sgi_finding(image: Image.Image, analysis: Analysis) -> str:
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
            if m.segment.text != am.segment.text and shared and _overlap(box, abox) >= 0.5:
                said.append(f"B's '{m.segment.text}' settles on the region A's '{am.segment.text}' found, matching "
                            f"it on '{' '.join(shared)}' alone, at {m.similarity:.3f}.")
    weakest = min(matches["B"], key=lambda m: m.similarity)
    said.append(f"SGI scores a caption by its segments' mean and {_prefers(analysis, 'sgi')}"
                + (f": B loses on its weakest segment, '{weakest.segment.text}'." if
                   analysis.scores["sgi"][0].value > analysis.scores["sgi"][1].value else "."))
    return " ".join(said)


def _colour_masks(image: Image.Image, colours: list[str]) -> dict[str, np.ndarray]:
    """Each of the world's ``colours`` as the pixels painted in it (the nearest of those paints and the background)."""
    paints = np.array([world.COLORS[c] for c in colours] + [world.BACKGROUND], dtype=float)
    pixels = np.asarray(image.convert("RGB"), dtype=float)
    distance = np.linalg.norm(pixels[..., None, :] - paints, axis=-1)
    nearest = distance.argmin(-1)
    return {c: (nearest == i) & (distance[..., i] < 60) for i, c in enumerate(colours)}


def _share(heat: np.ndarray, box: tuple[int, int, int, int], mask: np.ndarray) -> float:
    """The share of an attention map over the patch grid (which covers ``box``) that lies on ``mask``'s pixels."""
    x0, y0, x1, y1 = box
    rows = (np.arange(y1 - y0) * heat.shape[0]) // (y1 - y0)
    cols = (np.arange(x1 - x0) * heat.shape[1]) // (x1 - x0)
    cell = heat / (heat.sum() * np.bincount(rows)[:, None] * np.bincount(cols)[None, :])  # each pixel's share
    return float((cell[rows][:, cols] * mask[y0:y1, x0:x1]).sum())


def tflocal_finding(image: Image.Image, analysis: Analysis) -> str:
    """Where each colour word of caption A looks, ticked alone with the tab's default view (all layers and heads):
    its attention's share on the object of its colour and on the others, the objects found by their paint on the
    picture; then the caption TFLocal prefers."""
    if "tflocal" not in analysis.scores:
        return "This page runs no TFLocal: there is nothing of it to see here."
    ev = analysis.scores["tflocal"][0].evidence
    if not ev.trained:
        return f"**{analysis.model}** has no trained TFLocal head: its attention is random and shows nothing."
    words = [t.strip().lower().removesuffix("</w>") for t in ev.tokens]
    sgi = analysis.scores.get("sgi")
    segments = [m.segment.text for m in sgi[0].evidence.matches] if sgi else []  # A's objects named as A names them
    objects = {c: next((s for s in segments if c in s.split()), f"{c} object") for c in world.COLORS
               if c in words}
    masks = {c: m for c, m in _colour_masks(image, list(objects)).items() if m.any()}
    if len(masks) < 2:
        return "The picture does not show two objects of the caption's colours: tick a token and see."
    x0, y0, x1, y1 = ev.box
    area = {o: float(m[y0:y1, x0:x1].mean()) for o, m in masks.items()}  # what attention spread evenly puts there
    said, most = [], {}
    for c in masks:
        heat = ev.attention_map([words.index(c)], None, None)
        shares = {o: _share(heat, ev.box, masks[o]) for o in masks}
        said.append(f"'{c}' puts " + " and ".join(f"{100 * v:.0f}% on the {objects[o]}" for o, v in shares.items()))
        most[c] = max(shares, key=lambda o: shares[o] / area[o])  # the object it looks at most for its size
    if len(set(most.values())) == 1:
        verdict = (f"every colour word looks most at the same object, the {objects[next(iter(most.values()))]}: "
                   f"here the bright part does not follow the colour you tick")
    elif all(o == c for c, o in most.items()):
        verdict = "each colour word looks most at the object of its colour"
    else:
        verdict = "not every colour word looks most at the object of its colour"
    evenly = " and ".join(f"{100 * v:.0f}% on the {objects[o]}" for o, v in area.items())
    return (f"**On this picture, {analysis.model}**, each colour word of A ticked alone (all layers and heads): "
            + "; ".join(said) + f" (attention spread evenly would put {evenly}). So {verdict}. TFLocal's score "
            f"{_prefers(analysis, 'tflocal')}: it reads the whole attention, not where one token looks most.")


def global_finding(image: Image.Image, analysis: Analysis) -> str:
    """Both captions' global cosines, their difference and what it says: all read from ``analysis``."""
    if "global" not in analysis.scores:
        return "This page runs no global cosine: there is nothing of it to see here."
    a, b = (s.value for s in analysis.scores["global"])
    gap = a - b
    verdict = ("it prefers the swapped caption B: the false caption scores higher" if gap < 0 else
               "A wins by a hair: a swap moves one vector for the whole picture very little" if gap < SMALL_GAP else
               "A wins clearly here, yet the binding tab shows how little of the picture's vector is about which "
               "colour goes with which shape")
    return f"**On this picture, {analysis.model}**: A {a:.3f}, B {b:.3f}, A - B {gap:+.3f}: {verdict}."


def powerset_finding(image: Image.Image, analysis: Analysis) -> str:
    """Each noun phrase of A beside B's phrase in its place, with its best subset's cosine, and what a false phrase
    matching better means; then the caption PowerCLIP prefers: all read from ``analysis``."""
    if "powerset" not in analysis.scores:
        return "This page runs no PowerCLIP: there is nothing of it to see here."
    phrases = [[al for al in s.evidence.alignments if al.node.label == "NP"] for s in analysis.scores["powerset"]]
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
    return out + f" PowerCLIP scores a caption by all its phrases together and {_prefers(analysis, 'powerset')}."


def _objects(caption: str) -> list[tuple[str, str]]:
    """The world's objects a caption names (a colour word before a shape word), in its order."""
    words = caption.lower().replace(",", " ").split()
    return [(c, s) for c, s in zip(words, words[1:]) if c in world.COLORS and s in world.SHAPES]


def _listed(objects: list[tuple[str, str]]) -> str:
    return " and ".join(f"{world.article(c)} {c} {s}" for c, s in objects)


def binding_finding(image: Image.Image, analysis: Analysis, found: tuple[str, Any]) -> str:
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


def image_side_finding(image: Image.Image, analysis: Analysis, swap: Any) -> str:
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


SMALL_GAP = 0.02  # a global cosine gap under this is called a hair
EXAMPLE = "world: attribute swap (id)"  # a red and a blue object, and captions that swap their colours
STEPS: tuple[Step, ...] = (
    Step("1. The global cosine cannot tell the swap", EXAMPLE, "main",
         "Caption A describes the picture; B swaps the colours. In the table, the global cosine gives A and B nearly "
         "the same score (A - B close to 0), and it may even prefer B: one vector for the whole picture says which "
         "colours and shapes are there, not which colour goes with which shape.", global_finding),
    Step("2. Why: a bag of concepts", EXAMPLE, "binding",
         "Press 'Analyze the loaded model'. 'R2 object ~ colour + shape' near 100 means each object's embedding is "
         "almost its colour's plus its shape's: swap the colours between two objects and the sum barely moves. In the "
         "plot, each observed object (filled) sits next to its colour + shape sum (hollow).", binding_finding,
         "binding"),
    Step("3. SGI matches each phrase to a region", EXAMPLE, "main",
         "Under the table: each segment of a caption ('red square') takes the region that matches it best, drawn on "
         "the picture, and SGI scores a caption by its segments' mean. The heat map shows every segment against the "
         "top regions, the best one boxed.", sgi_finding),
    Step("4. TFLocal learns the same from data", EXAMPLE, "tflocal",
         "A small transformer trained over the frozen features: tick one colour word's token and see where it looks; "
         "its attention is drawn beside the picture, white where it looks most, and outlined on the picture.",
         tflocal_finding),
    Step("5. PowerCLIP aligns phrases with sets of regions", EXAMPLE, "powerset",
         "Each node of the caption's phrase tree takes the subset of regions whose pooled features match it best. "
         "Pick a noun phrase in A and in B and compare where their subsets lie and how well they match.",
         powerset_finding),
    Step("6. The same model fails the image side too", EXAMPLE, "main",
         "Open 'Draw a picture, have captions proposed, and see both sides of the swap' under the results and press "
         "'Make image B and score both sides': the page recolours the picture so that caption B describes it, and "
         "scores both pictures with both captions. The text score asks each picture to prefer its own caption, the "
         "image score each caption to prefer its own picture, the group score both.", image_side_finding, "swap"),
)
