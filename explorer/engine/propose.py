"""Captions proposed from a picture: the objects the segmentation finds, each named by a world model's own top
caption among the world's colours x shapes, caption A naming them all, and B its swap (``language.text``)."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, replace

import numpy as np
import torch
from PIL import Image
from scipy import ndimage

from explorer import world
from explorer.core import image_state
from explorer.core.image_state import ImageState
from explorer.engine import Engine
from explorer.engine.model_pool import EMBEDDED_CHOICE
from explorer.images.fit import INK, PROBE_SIDE, content_box
from explorer.images.ink import fills_alone, on_paper
from explorer.images.objects import Found, FoundObject, blend, off_blend
from explorer.images.page import page_of
from explorer.images.regions import Box
from explorer.language import text
from explorer.methods import proposals
from explorer.models.encoders import DualEncoder
from explorer.models.model_configs import EMBEDDED_MODEL
from explorer.world.benchmark import object_captions
from explorer.world.palette import BACKGROUND

log = logging.getLogger(__name__)

DRAWING_LIKE = 0.8  # world.flat_frame: a drawing's frame is plain (near 1.0), a photo's 0.26 to 0.66
OBJECT_SHARE = 0.3  # an object's side in its view, as a share of the view's: the world draws objects 0.24 to 0.36
MOST_OBJECTS = 4  # the world's scenes hold 1 to 4 objects
MOST_TILT = 20  # degrees: a shape drawn up to this far askew is set square before it is named (the world model reads
# a square 10 degrees askew as a circle: measured on the tune set of scripts/marker_drawings.py)
MOST_TURN = 60  # degrees: a triangle is turned up to this far to set it on its base (a triangle on a side or a point,
# which the world model reads as a star, is 30 degrees off it; a photographed sheet's turn adds to a pen's)
ON_ITS_BASE = 0.1  # of its height: a shape whose centroid lies this far below its box's middle at some turn is set at
# that turn (a triangle on its base: 0.17; a star on its feet 0.05, a square 0)
UNSURE = 0.5  # a name whose probability is below this is flagged as unsure
# objects are named on the world's own grey, where a world model learnt them (chosen on the val- drawn splits:
# a green star on a dark canvas reads as a square on its own background); None names each on its own background
NAMING_BACKGROUND: tuple[int, int, int] | None = BACKGROUND
INNERMOST = 0.5  # of a silhouette's deepest distance from its edge: its pixels this deep or deeper are its fill's
OTHER_INK = 60.0  # RGB off the blends of the paper and an object's fill: an outline of another colour
WASHED_SHARE = 0.9  # an inside whose ink lies mostly this short of its fill's colour is crayon blended with the paper
# (its grain read on a smaller copy, ``ink.WASHED``): it is named in its wax's colour (``washed``)
EMPTY = ("No objects found: the picture is one plain colour (an empty canvas?). Draw or upload shapes in the world's "
         "colours, on a plain background, and propose again.")
SPECKS = ("No objects found: only specks or faint marks stand out from the background. Draw shapes larger, in the "
          "world's colours, and propose again.")
BUSY = 0.3  # share of neighbouring pixels far apart: a picture this busy with no plain frame is a photo or a texture
PHRASE = re.compile(rf"\b(?:a|an|the)\s+(?:(?:small|large)\s+)?({'|'.join(world.COLORS)})\s+"
                    rf"({'|'.join(world.SHAPES)})\b", re.IGNORECASE)
Phrase = tuple[str, str]  # (colour, shape)
PHOTO = ("This picture looks like a photo, not flat shapes on a plain background (its border is not plain): the "
         "proposals name the world's shapes only. Type both captions yourself.")
OFF_WORLD_MODEL = ("The page's model ({}) was not trained on the world's shapes, so the objects were named by the "
                   "embedded world-clip instead.")


@dataclass(frozen=True)
class SeenObject:
    """One object the page found: the world's colour and shape the model names it, its box (x0, y0, x1, y1, pixels)
    and the model's probability for that name among all the world's objects."""

    color: str
    shape: str
    box: Box
    confidence: float

    @property
    def phrase(self) -> str:
        return world.WorldObject(self.color, self.shape, "small", 0.5, 0.5).phrase()


@dataclass(frozen=True)
class Proposal:
    """What the page proposes for a picture: caption A ("" when nothing was found), B its swap ("" when A has none),
    the objects seen (left to right), which model named them, and what the user should know."""

    caption_a: str
    caption_b: str
    objects: tuple[SeenObject, ...]
    model: str
    notes: tuple[str, ...] = ()
    touching: tuple[tuple[int, int], ...] = ()  # pairs of objects (indices into ``objects``) that touch


def is_world_model(encoder: DualEncoder) -> bool:
    """Whether the encoder is one of the project's own world models (trained on the world's shapes)."""
    return encoder.name == EMBEDDED_MODEL and encoder.checkpoint is not None


def namer(engine: Engine, choice: str | None = None) -> tuple[DualEncoder, str]:
    """The encoder that names objects for the session's model: itself where it is a world model, else the embedded
    world-clip, with the session's model's label (else "")."""
    loaded = engine.model(choice)
    if is_world_model(loaded.encoder):
        return loaded.encoder, ""
    return engine.model(EMBEDDED_CHOICE).encoder, loaded.label


def object_view(image: Image.Image, found: FoundObject, page: bool = False) -> Image.Image:
    """The object as the world draws one, centred on the naming background (``NAMING_BACKGROUND``, or its own where
    that is None) at the share of the frame the world draws objects: read as a page (``page``), its silhouette flat
    in the fill's colour its reading found (an outline, crayon's grain or a photo's light not part of what it is);
    else its mask's own pixels, the paper showing through a scribbled inside painted in its fill (all of a washed
    inside: ``WASHED_SHARE``), and an outline of another colour (off the blends of the paper and its innermost ink's
    colour, ``innermost``) painted in that ink's colour (a plain reading may keep a dark outline with its fill)."""
    x0, y0, x1, y1 = found.box
    side = max(8, int(round(max(x1 - x0, y1 - y0) / OBJECT_SHARE)))
    view = Image.new("RGB", (side, side), NAMING_BACKGROUND or found.background)
    mask = found.mask[y0:y1, x0:x1]
    cut = np.asarray(image.convert("RGB").crop(found.box)).copy()
    if page:
        cut[:] = found.rgb
    else:
        inner = ndimage.binary_erosion(mask, iterations=2)
        share = blend(cut.astype(float), found.background, found.rgb)
        cut[inner & (share < 0.5)] = found.rgb  # the paper in a scribble's gaps
        if washed(share[inner]):
            cut[inner & (off_blend(cut, found.background, found.rgb) < OTHER_INK)] = found.rgb
        fill = innermost(cut, mask, found)
        cut[mask & (off_blend(cut, found.background, fill) > OTHER_INK)] = fill  # an outline of another colour
    view.paste(Image.fromarray(cut), ((side - cut.shape[1]) // 2, (side - cut.shape[0]) // 2),
               Image.fromarray(mask.astype(np.uint8) * 255))
    return view


def washed(shares: np.ndarray) -> bool:
    """Whether an inside, its pixels' shares of the way from the paper to its fill's colour, is crayon blended with
    the paper through its grain (read on a smaller copy): most of its ink short of its fill's colour
    (``WASHED_SHARE``; a flat fill's and a marker's strokes are their colour)."""
    ink = shares >= 0.5
    return bool(np.median(shares[ink]) < WASHED_SHARE) if ink.any() else False


def innermost(pixels: np.ndarray, mask: np.ndarray, found: FoundObject) -> tuple[int, int, int]:
    """The median colour of the ink (``INK`` from the paper around) among an object's innermost pixels (at least
    ``INNERMOST`` of its mask's deepest distance from its edge); its fill's found colour where that holds none."""
    depth = ndimage.distance_transform_edt(np.pad(mask, 1))[1:-1, 1:-1]
    ink = np.linalg.norm(pixels.astype(np.float32) - np.asarray(found.background, np.float32), axis=-1) > INK
    inner = mask & ink & (depth >= INNERMOST * depth.max())
    if not inner.any():
        return found.rgb
    return tuple(int(v) for v in np.median(pixels[inner], axis=0))  # type: ignore[return-value]


def upright(mask: np.ndarray) -> float:
    """The turn (degrees, counter-clockwise as ``Image.rotate`` turns) that sets a hand-drawn shape, its mask (H, W),
    upright as the world draws it: within ``MOST_TURN``, the one that leaves it the most bottom-heavy where that is a
    triangle's (``ON_ITS_BASE``: on its base, whose box is as tight as on a side or a point); else within
    ``MOST_TILT`` the one whose box is the tightest (a square drawn askew set square), the least turn among boxes
    within 1% of that."""
    ys, xs = np.nonzero(mask)
    xs, ys = xs - xs.mean(), ys - ys.mean()
    turns = np.arange(-MOST_TURN, MOST_TURN + 1, 2, dtype=float)
    sizes, lows = [], []
    for t in np.radians(turns):
        u, v = xs * np.cos(t) + ys * np.sin(t), -xs * np.sin(t) + ys * np.cos(t)
        sizes.append(np.ptp(u) * np.ptp(v))
        lows.append(-(v.max() + v.min()) / 2 / max(1.0, float(np.ptp(v))))  # the centroid (0) below the box's middle
    if max(lows) >= ON_ITS_BASE:
        return float(turns[int(np.argmax(lows))])
    near = np.abs(turns) <= MOST_TILT
    areas = np.where(near, sizes, np.inf)
    close = np.flatnonzero(areas <= 1.01 * areas.min())
    return float(turns[close[np.argmin(np.abs(turns[close]))]])


def name_objects(encoder: DualEncoder, image: Image.Image, found: Found) -> list[SeenObject]:
    """Each object named by the encoder's top caption among the world's colours x shapes, with its probability, in
    its view (``object_view``: its silhouette flat in its fill's colour) set upright (``upright``: the world's shapes
    are; a hand-drawn one seldom is)."""
    if not found.objects:
        return []
    captions = object_captions()
    combos = [(c, s) for c in world.COLORS for s in world.SHAPES]  # object_captions' order
    views = [object_view(image, o, found.page).rotate(upright(o.mask), Image.Resampling.BICUBIC,
                                          fillcolor=NAMING_BACKGROUND or o.background) for o in found.objects]
    scale = float(getattr(encoder.model, "logit_scale", torch.tensor(np.log(100.0))).detach().exp())
    probs = torch.softmax(scale * encoder.embed_images(views) @ encoder.embed_texts(captions).T, dim=-1)
    best = probs.argmax(dim=-1)
    return [SeenObject(*combos[int(k)], o.box, round(float(p[k]), 4)) for o, k, p in zip(found.objects, best, probs)]


def found_objects(state: ImageState) -> Found:
    """The flat objects of the state's picture (``proposals.objects``), kept in the state."""
    return proposals.objects(state)


def phrases(caption: str) -> list[Phrase]:
    """The world's objects a caption names, in order ("a red circle and a blue square": red circle, blue square)."""
    return [(c.lower(), s.lower()) for c, s in PHRASE.findall(caption)]


def false_swap(caption_a: str) -> text.Swap | None:
    """Caption A's first swap that is false of its picture: one naming other objects than A's ("a red square and a
    blue square" has none: its colours exchanged name the same two squares)."""
    named = sorted(phrases(caption_a))
    return next((s for s in text.propose_swaps(caption_a) if sorted(phrases(s.caption)) != named), None)


def why_nothing(image: Image.Image) -> str:
    """Why no object was found: the picture is a photo or a texture (its frame is not plain and its pixels are
    busy), one plain colour, or holds only specks."""
    paper = on_paper(image)
    if paper is None and busy(image) >= BUSY:
        return PHOTO
    return EMPTY if paper is not None and content_box(image, paper) is None else SPECKS


def busy(image: Image.Image) -> float:
    """The share of pixels (on a copy at most ``PROBE_SIDE`` a side, every pixel its own) whose right neighbour
    differs by more than ``INK``: near 0 for flat shapes on any background, about 0.9 for noise."""
    step = max(1, max(image.size) // PROBE_SIDE)
    pixels = np.asarray(image.convert("RGB"), dtype=np.float32)[::step, ::step]
    return float(np.mean(np.linalg.norm(np.diff(pixels, axis=1), axis=-1) > INK)) if pixels.shape[1] > 1 else 0.0


def propose(encoder: DualEncoder, image: Image.Image | ImageState, substitute: str = "") -> Proposal:
    """Caption A naming every object the segmentation finds, B its swap, and notes for what is odd (``substitute``:
    the page's model the encoder stands in for, which is not a world model)."""
    state = image_state.of(image)
    label = encoder.label
    notes = [OFF_WORLD_MODEL.format(substitute)] if substitute else []
    page = page_of(state)
    if page.crop is None and world.flat_frame(state.image) < DRAWING_LIKE:
        return Proposal("", "", (), label, (*notes, PHOTO))
    found = fills_alone(found_objects(state))
    notes += [f"{what[0].upper()}{what[1:]}." for what in page.what] + _text_note(found)
    if len(found.objects) > MOST_OBJECTS:
        notes.append(f"{len(found.objects)} objects found, more than a caption here names (the world's scenes hold "
                     f"{MOST_OBJECTS} at most): caption A names the {MOST_OBJECTS} largest, the objects that stand "
                     f"out most; the {len(found.objects) - MOST_OBJECTS} smallest are left out.")
        found = replace(found, objects=found.objects[:MOST_OBJECTS],
                        touching=tuple((i, j) for i, j in found.touching if max(i, j) < MOST_OBJECTS))
    order = sorted(range(len(found.objects)), key=lambda i: found.objects[i].box[0])  # left to right
    named = name_objects(encoder, state.image, found)
    seen = tuple(named[i] for i in order)
    where = {old: new for new, old in enumerate(order)}
    touching = tuple(sorted((min(where[i], where[j]), max(where[i], where[j])) for i, j in found.touching))
    if not seen:
        return Proposal("", "", (), label, (*notes, why_nothing(state.image)))
    notes += _notes(seen, touching)
    caption_a = world.list_caption([world.WorldObject(o.color, o.shape, "small", 0.5, 0.5) for o in seen])
    swap = false_swap(caption_a)
    if swap is None and len(seen) == 1:
        notes.append("Only one object was found, so caption A has no swap inside it: type caption B yourself, e.g. "
                     "the same shape in another colour, and the page makes that picture too.")
    elif swap is None:
        notes.append("Every swap of caption A's words is still true of the picture (its objects differ in one word "
                     "only): type caption B yourself, e.g. one shape in another colour, and the page makes that "
                     "picture too.")
    return Proposal(caption_a, swap.caption if swap else "", seen, label, tuple(notes), touching)


def _text_note(found: Found) -> list[str]:
    """What text the picture holds (a title, labels, a footer): read as text, never as a shape."""
    if not found.text:
        return []
    lines = "one line" if len(found.text) == 1 else f"{len(found.text)} lines"
    return [f"Text ({lines}: a title, a label or a footer) is text, not a shape: the proposals leave it out."]


def _notes(seen: tuple[SeenObject, ...], touching: tuple[tuple[int, int], ...]) -> list[str]:
    notes = []
    for i, j in touching:
        notes.append(f"Objects {i + 1} ({seen[i].phrase}) and {j + 1} ({seen[j].phrase}) touch: each is read from its "
                     f"own colour, and two of one colour that touch read as one object.")
    unsure = [f"{n + 1} ({o.phrase}, {o.confidence:.0%})" for n, o in enumerate(seen) if o.confidence < UNSURE]
    if unsure:
        notes.append(f"The model is unsure of object {', '.join(unsure)}: check caption A.")
    return notes
