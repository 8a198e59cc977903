"""TFLocal's step of the guided tour: tick a colour word and see where it looks, said from the example's attention."""

from __future__ import annotations

import numpy as np
from PIL import Image

from explorer import world
from explorer.language.text import segments
from explorer.world.tour import Compared, Step, prefers


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


def tflocal_finding(image: Image.Image, analysis: Compared) -> str:
    """Where each colour word of caption A looks, ticked alone with the tab's default view (all layers and heads):
    its attention's share on the object of its colour and on the others, the objects found by their paint on the
    picture; then the caption TFLocal prefers."""
    if "tflocal" not in analysis.scores:
        return "This page runs no TFLocal: there is nothing of it to see here."
    ev = analysis.scores["tflocal"][0].evidence
    if not ev.trained:
        return f"**{analysis.model}** has no trained TFLocal head: its attention is random and shows nothing."
    words = [t.strip().lower().removesuffix("</w>") for t in ev.tokens]
    named = [seg.text for seg in segments(analysis.captions[0])]  # A's objects named as A names them
    objects = {c: next((s for s in named if c in s.split()), f"{c} object") for c in world.COLORS
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
            f"{prefers(analysis, 'tflocal')}: it reads the whole attention, not where one token looks most.")


STEP = Step("TFLocal learns the same from data", "tflocal",
            "A small transformer trained over the frozen features: tick one colour word's token and see where it "
            "looks; its attention is drawn beside the picture, white where it looks most, and outlined on the picture.",
            tflocal_finding, target="attention-a")
