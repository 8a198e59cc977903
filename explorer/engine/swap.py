"""Both sides of a swap from one picture: image B made by recolouring (or reshaping) the objects caption A names so
that caption B describes it, then the full 2 x 2 (Winoground's text, image and group scores) for every method."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from PIL import Image
from scipy.optimize import linear_sum_assignment

from explorer import world
from explorer.core import image_state
from explorer.core.items import Item
from explorer.engine import Analysis, Engine
from explorer.engine.propose import DRAWING_LIKE, PHOTO, Phrase, found_objects, name_objects, namer, phrases
from explorer.eval.accuracy import SWAP_SCORES, Outcome, outcome
from explorer.images.inputs import clean_caption_pair
from explorer.images.recolour import recolour, reshape

LOOK_SHIFT = 60.0  # RGB: a fill this close to its palette colour keeps its offset (a look's tint) when recoloured


def _changes(a: list[Phrase], b: list[Phrase], caption_a: str, caption_b: str) -> list[tuple[int, Phrase]]:
    """Which of A's objects B changes, and into what; ``ValueError`` where B is not A with objects recoloured or
    reshaped."""
    if not a:
        raise ValueError(f"Caption A ({caption_a!r}) names none of the world's objects (a colour and a shape, like 'a "
                         "red circle'): the page makes image B by recolouring or reshaping the objects A names.")
    if len(a) != len(b):
        raise ValueError(f"Caption A names {len(a)} objects and caption B {len(b)}: the page makes image B only where "
                         "B names the same objects with their colours or shapes changed.")
    changed = [(i, q) for i, (p, q) in enumerate(zip(a, b)) if p != q]
    if sorted(a) == sorted(b):
        raise ValueError("Captions A and B name the same objects: B differs from A by word order or a relation "
                         "(where objects stand), and the page makes image B by recolouring or reshaping only.")
    return changed


def _match(named: list[tuple[str, str, tuple[int, int, int]]], wanted: list[Phrase], seen: str) -> list[int]:
    """Which found object each of caption A's objects is: colour by the model's name or by the nearest palette
    colour of the fill, shape by the model's name; ``ValueError`` for an object A names that is not there."""
    if len(wanted) > len(named):
        raise ValueError(f"Caption A names {len(wanted)} objects and the picture shows {len(named)}: {seen}.")
    palette = np.array(list(world.COLORS.values()), dtype=float)
    nearest = [list(world.COLORS)[int(np.linalg.norm(palette - rgb, axis=1).argmin())] for _, _, rgb in named]
    fit = np.array([[2 * (c == color or c == near) + (s == shape) for (color, shape, _), near in zip(named, nearest)]
                    for c, s in wanted], dtype=float)
    rows, cols = linear_sum_assignment(fit, maximize=True)
    for r, c in zip(rows, cols):
        if fit[r, c] < 2:
            raise ValueError(f"Caption A names {world.article(wanted[r][0])} {' '.join(wanted[r])}, which the picture "
                             f"does not show: it shows {seen}. Make caption A describe the picture (Propose captions "
                             "does) and B its swap.")
    return [int(c) for _, c in sorted(zip(rows, cols))]


def make_image_b(engine: Engine, image: Image.Image, caption_a: str, caption_b: str,
                 choice: str | None = None) -> tuple[Image.Image, tuple[str, ...]]:
    """Image B and what was changed to make it; ``ValueError`` saying why where it cannot be made."""
    a, b = clean_caption_pair(caption_a, caption_b)
    changes = _changes(phrases(a), phrases(b), a, b)
    state = image_state.of(image)
    if world.flat_frame(state.image) < DRAWING_LIKE:
        raise ValueError(PHOTO.replace("Type both captions yourself.", "Image B cannot be made from it."))
    found = found_objects(state)
    if not found.objects:
        raise ValueError("No objects were found in the picture, so there is nothing to recolour for image B.")
    encoder, _ = namer(engine, choice)
    names = name_objects(encoder, state.image, found)
    named = [(o.color, o.shape, f.rgb) for o, f in zip(names, found.objects)]
    seen = ", ".join(o.phrase for o in names)
    which = _match(named, phrases(a), seen)
    out, said = state.image.convert("RGB"), []
    for i, (color, shape) in changes:
        obj, (was_color, was_shape) = found.objects[which[i]], phrases(a)[i]
        fill = _fill(obj.rgb, was_color, color)
        out = recolour(out, obj, fill) if shape == was_shape else reshape(out, obj, shape, fill)
        said.append(f"the {was_color} {was_shape} made {world.article(color)} {color} {shape}")
    return out, tuple(said)


def _fill(rgb: tuple[int, int, int], was: str, becomes: str) -> tuple[int, int, int]:
    """The new fill: the palette's colour, shifted as the old fill is from its palette colour where that is a tint."""
    offset = np.subtract(rgb, world.COLORS[was])
    base = np.asarray(world.COLORS[becomes])
    new = base + offset if np.linalg.norm(offset) < LOOK_SHIFT else base
    return tuple(int(v) for v in np.clip(new, 0, 255))  # type: ignore[return-value]


def two_by_two(a: Analysis, b: Analysis) -> dict[str, Outcome]:
    """Each method's outcome on the 2 x 2: ``a`` scores both captions on image A, ``b`` on image B."""
    item = Item("swap", ("A", "B"), a.captions)
    return {name: outcome(item, np.array([[a.scores[name][0].value, b.scores[name][0].value],
                                          [a.scores[name][1].value, b.scores[name][1].value]]))
            for name in a.scores}


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: gradio's State hashes what it holds
class SwapResult:
    """Image A, the image B made from it, both analyses (captions A and B on each picture), and what was changed."""

    image_a: Image.Image
    image_b: Image.Image
    analysis_a: Analysis
    analysis_b: Analysis
    changed: tuple[str, ...]

    def outcomes(self) -> dict[str, Outcome]:
        return two_by_two(self.analysis_a, self.analysis_b)

    def table(self) -> pd.DataFrame:
        """The page's table on image A, and each method's text, image and group score on the 2 x 2 (None for a
        method on random weights, whose verdict means nothing)."""
        table = self.analysis_a.table()
        untrained = set(self.analysis_a.untrained)
        for score in SWAP_SCORES:
            table[score] = [None if name in untrained else _verdict(o, score)
                            for name, o in self.outcomes().items()]
        return table


def _verdict(found: Outcome, score: str) -> bool:
    return {"text": found.text, "image": bool(found.image), "group": found.correct}[score]


def swap(engine: Engine, image: Image.Image, caption_a: str, caption_b: str, choice: str | None = None,
         progress=None) -> SwapResult:
    """Image B made from ``image`` and both pictures scored with both captions by every method."""
    image_b, changed = make_image_b(engine, image, caption_a, caption_b, choice)
    a = engine.analyze(image, caption_a, caption_b, progress, choice)
    b = engine.analyze(image_b, caption_a, caption_b, progress, choice)
    return SwapResult(image, image_b, a, b, changed)
