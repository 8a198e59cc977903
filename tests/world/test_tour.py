"""The guided tour's words against its example's own numbers: each step that makes a claim about what the page shows
is checked on the example's comparison by the embedded model (the page's default)."""

import re

import numpy as np
import pytest

from explorer import world
from explorer.engine import Engine
from explorer.images.inputs import load_image
from explorer.methods import tour_steps
from explorer.world.examples import examples
from explorer.world.tour import EXAMPLE


@pytest.fixture(scope="module")
def shown(embedded):
    """The tour example's comparison, as the page keeps it: (image as read, analysis)."""
    example = next(e for e in examples() if e.name == EXAMPLE)
    image = load_image(example.path)
    return image, Engine(embedded).analyze(image, example.caption_a, example.caption_b)


def words(title_start: str, shown) -> str:
    step = next(s for s in tour_steps() if s.title.startswith(title_start))
    says = getattr(step, "says", None)  # a step that only had fixed words: those
    return says(shown) if says else step.look


def test_the_sgi_step_says_what_its_segments_score(shown):
    """It said B's 'blue square' finds no blue square, so its best region scores lower; on the embedded model it
    scores 0.795, B's highest segment, on the blue circle: B's 'red circle' is the one that scores low."""
    _, analysis = shown
    text = words("3.", shown)
    matches = {w: s.evidence.matches for w, s in zip("AB", analysis.scores["sgi"])}
    every = [(w, m.segment.text, m.similarity) for w, ms in matches.items() for m in ms]
    for _, segment, similarity in every:
        assert f"'{segment}' {similarity:.3f}" in text
    lowest = min(every, key=lambda e: e[2])
    said = re.search(r"lowest is (A|B)'s '([^']+)' \(([\d.]+)\)", text)
    assert said and said.groups() == (lowest[0], lowest[1], f"{lowest[2]:.3f}"), text
    for segment in re.findall(r"'([^']+)'[^.']*scores? lower", text):  # a segment said to score lower is the lowest
        assert segment == lowest[1], text
    a, b = (s.value for s in analysis.scores["sgi"])
    assert f"prefers {'A' if a > b else 'B'} ({a:.3f} against {b:.3f})" in text


def _shares(evidence, token: int, masks: dict[str, np.ndarray]) -> dict[str, float]:
    """The token's attention (all layers and heads, as the tab shows it) on each mask's pixels, spread evenly over
    each patch's pixels."""
    heat = evidence.attention_map([token], None, None)
    x0, y0, x1, y1 = evidence.box
    assert (y1 - y0) % heat.shape[0] == 0 and (x1 - x0) % heat.shape[1] == 0
    pixels = np.kron(heat, np.ones(((y1 - y0) // heat.shape[0], (x1 - x0) // heat.shape[1])))
    pixels /= pixels.sum()
    return {c: float(pixels[m[y0:y1, x0:x1]].sum()) for c, m in masks.items()}


def test_the_tflocal_step_says_where_each_colour_word_looks(shown):
    """It said the ticked colour's object lights up; on the embedded model 'red' looks most at the blue circle."""
    image, analysis = shown
    text = words("4.", shown)
    evidence = analysis.scores["tflocal"][0].evidence
    pixels = np.asarray(image.convert("RGB"))
    colours = [c for c in world.COLORS if c in evidence.tokens]
    masks = {c: (pixels == world.COLORS[c]).all(-1) for c in colours}
    assert len(colours) == 2 and all(m.sum() > 100 for m in masks.values())  # the red and the blue object
    objects = {c: next(m.segment.text for m in analysis.scores["sgi"][0].evidence.matches if c in m.segment.text)
               for c in colours}
    most = {}
    for c in colours:
        shares = _shares(evidence, evidence.tokens.index(c), masks)
        said = re.search(rf"'{c}' puts (\d+)% on the {objects[colours[0]]} and (\d+)% on the {objects[colours[1]]}",
                         text)
        assert said, text
        assert [int(p) for p in said.groups()] == pytest.approx([100 * shares[o] for o in colours], abs=1)
        most[c] = max(colours, key=lambda o: shares[o] / masks[o].mean())
    if any(o != c for c, o in most.items()):  # a colour word that looks most elsewhere: the words may not say it
        assert "should be the object of that colour" not in text
        assert "each colour word looks most at the object of its colour" not in text
    if len(set(most.values())) == 1:
        assert f"looks most at the same object, the {objects[next(iter(most.values()))]}" in text


def test_the_global_step_says_both_cosines_and_which_wins(shown):
    _, analysis = shown
    a, b = (s.value for s in analysis.scores["global"])
    text = words("1.", shown)
    assert f"A {a:.3f}, B {b:.3f}, A - B {a - b:+.3f}" in text
    assert ("prefers the swapped caption B" in text) == (b > a)


def test_the_powerclip_step_says_each_swapped_phrase_and_a_false_one_that_wins(shown):
    """It showed B's swapped phrase scoring above A's true one with no word on it; now the numbers and the word."""
    _, analysis = shown
    text = words("5.", shown)
    nodes = [[al for al in s.evidence.alignments if al.node.label == "NP"] for s in analysis.scores["powerclip"]]
    pairs = [(x, y) for x, y in zip(*nodes) if x.node.text != y.node.text]
    assert pairs
    for x, y in pairs:
        assert f"A's '{x.node.text}' {x.exact:.3f} against B's '{y.node.text}' {y.exact:.3f}" in text
    assert ("does not show" in text) == any(y.exact > x.exact for x, y in pairs), text
    a, b = (s.value for s in analysis.scores["powerclip"])
    assert f"prefers {'A' if a > b else 'B'} ({a:.3f} against {b:.3f})" in text


def _reading(embeddings: np.ndarray, r2: float, chance: float, verdict: str):
    """A binding tab's reading (its label and ``ModelReading``) of the tab's 276 scenes with these image embeddings."""
    from explorer.readings.binding import SceneTable, all_pairs
    from explorer.readings.binding_report import ModelReading

    table = SceneTable(all_pairs(8, 3), embeddings, 8, 3)
    fit = {"value": r2, "null": {"mean": chance}, "reading": verdict}
    return "a model", ModelReading({"image": table}, {"image": {"r2.concepts": fit}}, None, None, [])


def _scene(objects: set[str]) -> int:
    """The index of the tab's scene of these two objects ('red square' and so on)."""
    from explorer.readings.binding import all_pairs

    colours, shapes = list(world.COLORS), list(world.SHAPES)
    return next(i for i, pair in enumerate(all_pairs(8, 3))
                if {f"{colours[c]} {shapes[s]}" for c, s in pair} == objects)


def test_the_binding_step_says_where_the_tabs_model_puts_the_example_and_its_swap(shown):
    """It said what 'R2 near 100' means whatever the model read; now the example's scene and its swap's cosine, how
    many scenes lie nearer, and the model's R2 beside chance: other numbers, other words."""
    step = next(s for s in tour_steps() if s.title.startswith("2."))
    assert step.says(shown).endswith("'Analyze the loaded model' has run.*")  # no reading yet: it waits
    scene, swapped = _scene({"red square", "blue circle"}), _scene({"blue square", "red circle"})
    embeddings = np.random.default_rng(0).normal(size=(276, 16))
    unit = embeddings / np.linalg.norm(embeddings, axis=1, keepdims=True)
    cosine = np.delete(unit @ unit[scene], scene)
    swap = float(unit[swapped] @ unit[scene])
    text = step.says(shown, _reading(embeddings, 99.2, 99.5, "below chance"))
    assert "a red square and a blue circle (caption A's objects)" in text and "a blue square and a red circle" in text
    assert f"cosine {swap:.3f}" in text and f"at {cosine.mean():.3f} from it on average" in text
    assert f"{int((cosine > swap).sum())} of the other 275 scenes lie nearer" in text
    assert "99.2 here, and an encoder that cannot bind scores 99.5: by itself no sign of binding" in text
    embeddings[swapped] = embeddings[scene] + 0.01  # a model that puts the swap on the scene: no scene nearer
    text = step.says(shown, _reading(embeddings, 97.0, 60.0, "above chance"))
    assert "no other scene lies nearer to it than its swap" in text and "lie nearer" not in text
    assert "97.0 here, and an encoder that cannot bind scores 60.0: above what such an encoder scores" in text


def _replaced(analysis, values: dict[str, tuple[float, float]]):
    """``analysis`` with these methods' two scores set to ``values``."""
    import dataclasses

    scores = {name: tuple(dataclasses.replace(s, value=v) for s, v in zip(analysis.scores[name], values[name]))
              if name in values else pair for name, pair in analysis.scores.items()}
    return dataclasses.replace(analysis, scores=scores)


def test_the_image_side_step_says_both_pictures_scores_and_their_verdicts(shown, embedded):
    """It said the global cosine fails both sides whatever the page showed; now the four scores and the 2 x 2's
    verdicts of the swap the page made, and other scores say other verdicts."""
    from explorer.engine.swap import SwapResult, swap

    image, analysis = shown
    step = next(s for s in tour_steps() if s.title.startswith("6."))
    made = swap(Engine(embedded), image, *analysis.captions)
    assert step.says(shown).endswith("has run on it.*")
    other = SwapResult(made.image_b, made.image_a, made.analysis_b, made.analysis_a, made.changed)
    assert step.says(shown, other).endswith("has run on it.*")  # a 2 x 2 of another picture: not this example's
    text = step.says(shown, made)
    found = made.outcomes()
    for name, label in (("global", "the global cosine"), ("sgi", "SGI")):
        (aa, ba), (ab, bb) = ((s.value for s in side.scores[name]) for side in (made.analysis_a, made.analysis_b))
        assert (f"{label} scores caption A {aa:.3f} on image A and {ab:.3f} on image B, caption B {ba:.3f} and "
                f"{bb:.3f}") in text
        said = text.split(f"{label} scores")[1].split(").")[0]  # this method's sentence
        assert f"(text score {'yes' if found[name].text else 'no'})" in said
        assert f"(image score {'yes' if found[name].image else 'no'}" in said
    assert ("cannot tell the captions apart on one picture, nor the pictures apart" in text) == (
        not found["global"].text and not found["global"].image)
    right = SwapResult(made.image_a, made.image_b, _replaced(made.analysis_a, {"global": (0.9, 0.1)}),
                       _replaced(made.analysis_b, {"global": (0.2, 0.8)}), made.changed)
    text = step.says(shown, right)
    assert ("the global cosine scores caption A 0.900 on image A and 0.200 on image B, caption B 0.100 and 0.800: each "
            "picture prefers its own caption (text score yes), each caption its own picture (image score yes)") in text
    assert "cannot tell the captions apart" not in text
