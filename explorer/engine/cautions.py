"""Where a method's evidence is weak or off the objects, judged on a drawing's own objects and said in words a
student reads, by one rule for every method: its evidence lies off the objects (each method's own judge, its
``MethodInfo.cautions``: an SGI match or a PowerCLIP subset mostly on canvas, TFLocal's attention on the background
beyond an even spread at any layer), or it prefers a caption that names a colour no object found has
(``absent_colours``); and the model's input showing none of the objects.

Only a picture drawn on plain paper is judged (its prepared ``Picture`` has a paper): there the objects are known and
everything else is canvas. A photo gets no caution: what is "background" in it is not known here.
"""

from __future__ import annotations

import re
from typing import Mapping, Sequence

import numpy as np

from explorer.images.regions import Box
from explorer.methods import REGISTRY, Caution, Score
from explorer.methods.picture import Picture
from explorer.world.palette import COLORS

NEAREST_PAINT = 90.0  # RGB: a fill this far from every palette colour has no colour name here
COLOUR_WORD = re.compile(rf"\b({'|'.join(COLORS)})\b", re.IGNORECASE)


def input_caution(picture: Picture, seen: Box | None) -> list[Caution]:
    """The model's input (``seen``: the box of the upload it shows) holding none of the picture's objects' centres."""
    if seen is None or picture.paper is None:
        return []
    inside = [seen[0] <= x < seen[2] and seen[1] <= y < seen[3] for x, y in picture.centres()]
    if not inside or any(inside):
        return []
    return [Caution("", -1, f"The model's input shows none of the picture's {len(inside)} shapes (they lie outside "
                            "the part it reads): every method's verdict here is about empty canvas, not the shapes.",
                    1.0)]


def found_colours(picture: Picture) -> set[str] | None:
    """The world's colours of the objects drawn on the picture's plain paper (each its fill's nearest palette
    colour); None where any object's fill is far from every palette colour (its name unknown) or nothing was found."""
    if not picture.objects:
        return None
    names = list(COLORS)
    paints = np.asarray([COLORS[n] for n in names], float)
    out = set()
    for o in picture.objects:
        far = np.linalg.norm(paints - np.asarray(o.rgb, float), axis=1)
        if far.min() > NEAREST_PAINT:
            return None
        out.add(names[int(far.argmin())])
    return out


def absent_colours(picture: Picture, scores: Mapping[str, Sequence[Score]],
                   untrained: Sequence[str] = ()) -> list[Caution]:
    """Each trained method that prefers a caption naming a colour that no object found on the picture has."""
    there = found_colours(picture)
    if there is None:
        return []
    out = []
    for name, (a, b) in scores.items():
        if name in untrained or a.value == b.value:
            continue
        which, preferred = (0, a) if a.value > b.value else (1, b)
        missing = sorted({c.lower() for c in COLOUR_WORD.findall(preferred.caption)} - there)
        if missing:
            label = REGISTRY[name].label if name in REGISTRY else name
            out.append(Caution(name, which, f"{label} prefers caption {'AB'[which]}, which names "
                                            f"{' and '.join(missing)}, a colour none of the shapes found here has "
                                            f"({', '.join(sorted(there))}): its verdict is not about what is drawn.",
                               1.0))
    return out


def judge(picture: Picture, scores: Mapping[str, Sequence[Score]], untrained: Sequence[str] = ()) -> list[Caution]:
    """Every trained method's weak evidence on the picture (the view every method read): off the objects, or
    preferring a caption with a colour that is not there."""
    mask = picture.mask()
    if mask is None:
        return []
    out: list[Caution] = []
    for name, pair in scores.items():
        if name in untrained:
            continue
        judged = REGISTRY[name].info.cautions if name in REGISTRY else None
        for which, score in enumerate(pair):
            out += judged(name, which, score.evidence, mask) if judged else []
    return out + absent_colours(picture, scores, untrained)
