"""Control encoders for the binding readings: three that cannot bind by construction and one that binds by
construction, each with the protocol the readings use (``label``, ``image_size``, ``embed_images``,
``embed_texts``), so that ``explorer.api.binding_readings`` runs them through the very code a model goes through.

A negative control must read "at chance" on every reading; where one does not, the renders or the null are wrong,
not the control. The positive control must read "above chance" on the readings that can see binding (``BINDING``).
The controls read a world picture back into its objects (``read_scene``: the world's default look draws flat palette
colours with hard edges on grey) and a caption into its words.
"""

from __future__ import annotations

import hashlib
import re
from typing import Sequence

import numpy as np
import torch
from PIL import Image
from scipy import ndimage

from explorer import world
from explorer.readings.equal_area import target_pixels

IMAGE_SIZE = 128  # the embedded model's
LAYOUT = 8  # the colour-blind layout's grid: 8 x 8 cells
COLOURS, SHAPES = list(world.COLORS), list(world.SHAPES)
# the readings that a binding encoder passes: the additive probe is blind to a swap by its form, the R2 of colour +
# shape and the linear probe of concepts read concepts, not which colour sits on which shape, and the slot MLP need
# not carry a colour (x) shape binding over to an object it never saw (the ground truth's retrieval by it stays in
# its null's range)
BINDING = ("r2.objects", "edit.top1", "probe.objects", "product.heldout_objects", "swap.mlp.heldout_objects",
           "swap.product.heldout_objects")
MIN_PIXELS = 20  # a colour's connected region smaller than this is no object
Obj = tuple[int, int]  # (colour index, shape index)


def read_scene(image: Image.Image) -> list[Obj]:
    """The objects of a world picture (default look): each connected region of a palette colour, its shape told by
    how much of its bounding box it fills (square about 1, circle about 0.79, triangle about 0.5, star less)."""
    pixels = np.asarray(image.convert("RGB"), dtype=int)
    found = []
    for c, rgb in enumerate(world.COLORS.values()):
        regions, n = ndimage.label((np.abs(pixels - np.array(rgb)).sum(-1) == 0))
        for box, k in zip(ndimage.find_objects(regions), range(1, n + 1)):
            area = int((regions[box] == k).sum())
            if area >= MIN_PIXELS:
                fill = area / ((box[0].stop - box[0].start) * (box[1].stop - box[1].start))
                found.append((c, 1 if fill > 0.9 else 0 if fill > 0.65 else 2 if fill > 0.42 else 3))
    return found


def read_caption(caption: str) -> list[Obj]:
    """The objects a caption names: each colour word with the shape word after it."""
    words = re.findall(r"[a-z]+", caption.lower())
    return [(COLOURS.index(a), SHAPES.index(b)) for a, b in zip(words, words[1:]) if a in COLOURS and b in SHAPES]


def colour_shares(image: Image.Image) -> np.ndarray:
    """How many objects' worth of pixels each palette colour covers (8: its pixels over ``target_pixels``), and the
    colour-blind layout: the share of each of the 8 x 8 cells that is not background (64)."""
    pixels = np.asarray(image.convert("RGB"), dtype=int)
    unit = target_pixels(pixels.shape[0])
    shares = [float((np.abs(pixels - np.array(rgb)).sum(-1) == 0).sum()) / unit for rgb in world.COLORS.values()]
    ground = (np.abs(pixels - np.array(world.BACKGROUND)).sum(-1) > 0).astype(float)
    side = ground.shape[0] // LAYOUT
    layout = ground[: side * LAYOUT, : side * LAYOUT].reshape(LAYOUT, side, LAYOUT, side).mean((1, 3))
    return np.concatenate([shares, layout.ravel()])


def word_counts(caption: str) -> np.ndarray:
    """How often each colour word and each shape word occurs (12): a caption's colour shares, with no order."""
    words = re.findall(r"[a-z]+", caption.lower())
    return np.array([words.count(w) for w in COLOURS + SHAPES], dtype=float)


def _bag(objects: list[Obj]) -> np.ndarray:
    """Which colours and which shapes are present (12), nothing of which goes with which."""
    out = np.zeros(len(COLOURS) + len(SHAPES))
    for c, s in objects:
        out[c] = out[len(COLOURS) + s] = 1.0
    return out


def _seeded(data: bytes) -> np.random.Generator:
    return np.random.default_rng(int.from_bytes(hashlib.sha256(data).digest()[:8], "little"))


class Control:
    """An encoder of pictures and captions through two functions to feature vectors."""

    label = "control"
    image_size = IMAGE_SIZE

    def image_features(self, image: Image.Image) -> np.ndarray:
        raise NotImplementedError

    def text_features(self, caption: str) -> np.ndarray:
        raise NotImplementedError

    def embed_images(self, images: Sequence[Image.Image]) -> torch.Tensor:
        return torch.tensor(np.stack([self.image_features(i) for i in images]), dtype=torch.float32)

    def embed_texts(self, captions: Sequence[str]) -> torch.Tensor:
        return torch.tensor(np.stack([self.text_features(c) for c in captions]), dtype=torch.float32)


class ColourShares(Control):
    """Negative: each colour's pixel share and a colour-blind 8 x 8 layout (pictures); word counts (captions)."""

    label = "control: colour shares + colour-blind layout"

    def image_features(self, image: Image.Image) -> np.ndarray:
        return colour_shares(image)

    def text_features(self, caption: str) -> np.ndarray:
        return word_counts(caption)


class BagOfConcepts(Control):
    """Negative: which colours and which shapes the scene holds, read back from the picture or the caption."""

    label = "control: bag of concepts"

    def image_features(self, image: Image.Image) -> np.ndarray:
        return _bag(read_scene(image))

    def text_features(self, caption: str) -> np.ndarray:
        return _bag(read_caption(caption))


class RandomFeatures(Control):
    """Negative: random ReLU features (64) of the colour shares and layout, or of the word counts, plus noise drawn
    afresh for every picture and caption (seeded by its bytes): the sides of a swap differ, at random."""

    label = "control: random features"
    WIDTH, NOISE = 64, 0.5

    def __init__(self, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        self.image_w = rng.standard_normal((self.WIDTH, len(COLOURS) + LAYOUT * LAYOUT))
        self.text_w = rng.standard_normal((self.WIDTH, len(COLOURS) + len(SHAPES)))

    def _features(self, w: np.ndarray, x: np.ndarray, data: bytes) -> np.ndarray:
        return np.maximum(w @ x, 0) + self.NOISE * _seeded(data).standard_normal(self.WIDTH)

    def image_features(self, image: Image.Image) -> np.ndarray:
        return self._features(self.image_w, colour_shares(image), image.tobytes())

    def text_features(self, caption: str) -> np.ndarray:
        return self._features(self.text_w, word_counts(caption), caption.encode())


def _regions(image: Image.Image) -> list[tuple[int, float]]:
    """Each palette colour's region in a world picture: (colour, its bounding box's distance from the centre)."""
    pixels = np.asarray(image.convert("RGB"), dtype=int)
    out = []
    for c, rgb in enumerate(world.COLORS.values()):
        ys, xs = np.nonzero((np.abs(pixels - np.array(rgb)).sum(-1) == 0))
        if len(ys) >= MIN_PIXELS:
            cy, cx = (ys.min() + ys.max() + 1) / 2, (xs.min() + xs.max() + 1) / 2
            out.append((c, float(np.hypot(cy - pixels.shape[0] / 2, cx - pixels.shape[1] / 2))))
    return out


class Placement(Control):
    """Negative, unless places follow colours: the bag of concepts and which colour sits nearer the picture's centre
    (pictures), or which colour is named first (captions). Its only cue beyond the bag is where an object is put
    (or named): with places given to objects at random it cannot bind; were the first object of a scene (the lower
    colour index) put nearer the centre more often, it would read a binding-like cue."""

    label = "control: bag of concepts + which colour is nearer the centre"

    def image_features(self, image: Image.Image) -> np.ndarray:
        regions = sorted(_regions(image), key=lambda r: r[1])
        return self._with_first(read_scene(image), regions[0][0] if regions else None)

    def text_features(self, caption: str) -> np.ndarray:
        named = read_caption(caption)
        return self._with_first(named, named[0][0] if named else None)

    @staticmethod
    def _with_first(objects: list[Obj], colour: int | None) -> np.ndarray:
        first = np.zeros(len(COLOURS))
        if colour is not None:
            first[colour] = 1.0
        return np.concatenate([_bag(objects), first])


class GroundTruth(Control):
    """Positive: the sum over the scene's objects of its colour's vector (x) its shape's (a tensor product, 64), from
    the objects read back from the picture or the caption: which colour sits on which shape, by construction."""

    label = "control: ground truth (colour (x) shape per object)"
    DIM = 8

    def __init__(self, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        self.colour = rng.standard_normal((len(COLOURS), self.DIM))
        self.shape = rng.standard_normal((len(SHAPES), self.DIM))

    def _embed(self, objects: list[Obj]) -> np.ndarray:
        return sum((np.kron(self.colour[c], self.shape[s]) for c, s in objects), np.zeros(self.DIM**2))

    def image_features(self, image: Image.Image) -> np.ndarray:
        return self._embed(read_scene(image))

    def text_features(self, caption: str) -> np.ndarray:
        return self._embed(read_caption(caption))


class NoisyBinding(GroundTruth):
    """Positive, weakened: the bag of concepts plus the ground truth's colour (x) shape term, with noise of its own
    per picture and caption (seeded by its bytes) at ``noise`` times the binding term's typical size: its power
    falls as the noise rises."""

    def __init__(self, noise: float = 0.5, seed: int = 0) -> None:
        super().__init__(seed)
        self.noise = noise
        self.label = f"control: bag + colour (x) shape, noise {noise:g}"

    def _noisy(self, objects: list[Obj], data: bytes) -> np.ndarray:
        term = self._embed(objects)
        scale = self.noise * np.sqrt(2.0)  # the term's spread a dimension: two objects, each a product of unit normals
        return np.concatenate([_bag(objects), term + scale * _seeded(data).standard_normal(term.shape)])

    def image_features(self, image: Image.Image) -> np.ndarray:
        return self._noisy(read_scene(image), image.tobytes())

    def text_features(self, caption: str) -> np.ndarray:
        return self._noisy(read_caption(caption), caption.encode())


NEGATIVE = (ColourShares, BagOfConcepts, RandomFeatures, Placement)
POSITIVE = GroundTruth
NOISES = (0.25, 0.5, 1.0, 2.0)  # the noisy positive control's levels, for its power curve
