"""Captions proposed from a picture: the objects the segmentation finds, each named by a world model's own top
caption among the world's colours x shapes, caption A naming them all, and B its swap (``language.text``)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
import torch
from PIL import Image

from explorer import world
from explorer.core import image_state
from explorer.core.image_state import ImageState
from explorer.engine import Engine
from explorer.engine.model_pool import EMBEDDED_CHOICE
from explorer.images.objects import Found, FoundObject, find_objects
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
UNSURE = 0.5  # a name whose probability is below this is flagged as unsure
# objects are named on the world's own grey, where a world model learnt them (chosen on the val- drawn splits:
# a green star on a dark canvas reads as a square on its own background); None names each on its own background
NAMING_BACKGROUND: tuple[int, int, int] | None = BACKGROUND
EMPTY = ("No objects found: the picture is one plain colour (an empty canvas?). Draw or upload shapes in the world's "
         "colours, on a plain background, and propose again.")
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


def object_view(image: Image.Image, found: FoundObject) -> Image.Image:
    """The object alone (its mask's pixels), centred on the naming background (``NAMING_BACKGROUND``, or its own
    where that is None), at the share of the frame the world draws objects."""
    x0, y0, x1, y1 = found.box
    side = max(8, int(round(max(x1 - x0, y1 - y0) / OBJECT_SHARE)))
    view = Image.new("RGB", (side, side), NAMING_BACKGROUND or found.background)
    cut = image.convert("RGB").crop(found.box)
    mask = Image.fromarray(found.mask[y0:y1, x0:x1].astype(np.uint8) * 255)
    view.paste(cut, ((side - cut.width) // 2, (side - cut.height) // 2), mask)
    return view


def name_objects(encoder: DualEncoder, image: Image.Image, found: Found) -> list[SeenObject]:
    """Each object named by the encoder's top caption among the world's colours x shapes, with its probability."""
    if not found.objects:
        return []
    captions = object_captions()
    combos = [(c, s) for c in world.COLORS for s in world.SHAPES]  # object_captions' order
    views = encoder.embed_images([object_view(image, o) for o in found.objects])
    scale = float(getattr(encoder.model, "logit_scale", torch.tensor(np.log(100.0))).detach().exp())
    probs = torch.softmax(scale * views @ encoder.embed_texts(captions).T, dim=-1)
    best = probs.argmax(dim=-1)
    return [SeenObject(*combos[int(k)], o.box, round(float(p[k]), 4)) for o, k, p in zip(found.objects, best, probs)]


def found_objects(state: ImageState) -> Found:
    """The flat objects of the state's picture, from the segmentation SGI and PowerCLIP share (kept in the state)."""
    return state.get_or_compute(("objects", "found"),
                                lambda: find_objects(state.image, proposals.regions(state, proposals.segmentation())))


def propose(encoder: DualEncoder, image: Image.Image | ImageState, substitute: str = "") -> Proposal:
    """Caption A naming every object the segmentation finds, B its swap, and notes for what is odd (``substitute``:
    the page's model the encoder stands in for, which is not a world model)."""
    state = image_state.of(image)
    label = encoder.label
    notes = [OFF_WORLD_MODEL.format(substitute)] if substitute else []
    if world.flat_frame(state.image) < DRAWING_LIKE:
        return Proposal("", "", (), label, (*notes, PHOTO))
    found = found_objects(state)
    order = sorted(range(len(found.objects)), key=lambda i: found.objects[i].box[0])  # left to right
    named = name_objects(encoder, state.image, found)
    seen = tuple(named[i] for i in order)
    where = {old: new for new, old in enumerate(order)}
    touching = tuple(sorted((min(where[i], where[j]), max(where[i], where[j])) for i, j in found.touching))
    if not seen:
        return Proposal("", "", (), label, (*notes, EMPTY))
    notes += _notes(seen, touching)
    caption_a = world.list_caption([world.WorldObject(o.color, o.shape, "small", 0.5, 0.5) for o in seen])
    swap = text.propose_swap(caption_a)
    if swap is None:
        notes.append("Only one object was found, so caption A has no swap inside it: type caption B yourself, e.g. "
                     "the same shape in another colour, and the page makes that picture too.")
    return Proposal(caption_a, swap.caption if swap else "", seen, label, tuple(notes), touching)


def _notes(seen: tuple[SeenObject, ...], touching: tuple[tuple[int, int], ...]) -> list[str]:
    notes = []
    if len(seen) > MOST_OBJECTS:
        notes.append(f"{len(seen)} objects found: the world's scenes hold {MOST_OBJECTS} at most, so the model never "
                     f"saw this many together; caption A names them all and B swaps the first two.")
    for i, j in touching:
        notes.append(f"Objects {i + 1} ({seen[i].phrase}) and {j + 1} ({seen[j].phrase}) touch: each is read from its "
                     f"own colour, and two of one colour that touch read as one object.")
    unsure = [f"{n + 1} ({o.phrase}, {o.confidence:.0%})" for n, o in enumerate(seen) if o.confidence < UNSURE]
    if unsure:
        notes.append(f"The model is unsure of object {', '.join(unsure)}: check caption A.")
    return notes
