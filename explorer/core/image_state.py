"""One image's state: everything the models and methods compute of it, in one object, kept in one bounded store.

An analysis asks ``of(image)`` once (the image's content is hashed there) and hands the state down, as
segment-anything's ``SamPredictor.set_image`` keeps an image's work for its ``predict`` calls:
- the encoder keeps its global and patch features in it (``DualEncoder.encode_image``, ``DualEncoder.fill``);
- the region proposals their worker's result (``proposals.begin``, ``proposals.regions``), shared by SGI and PowerCLIP,
  and the objects found (``proposals.objects``);
- each method its own image-side work (SGI's region embeddings, PowerCLIP's masks and patch groups, TFLocal's keys),
  as the dataclass it declares, under its own ``key`` (``kept``);
- a view's state the frame it was cut from (``fit.view_state``), and the picture scaled for display
  (``display.display_image``);
- what is worked out for a caption (each method's scores, ``ScoringMethod.score``; the explainers' maps,
  ``explorer.explain.looks``) in a slot of its own, ``by_caption``: a caption is data there, never a name that could
  meet a method's work, and a caption edit finds the rest and works out only itself.
What is computed of a caption is kept by caption, not here: ``DualEncoder.encode_texts``, ``text.PARSES``.

The store holds at most the ``cache_size`` setting's count of states and, least recently used first out, about the
``image_states_mb`` setting's memory: a state weighs its image and the tensors and arrays it holds (each counted
once), and the store evicts when a state is asked for. An analysis holds the state of the view it read
(``Analysis.state``), so one evicted while an analysis is held (the page keeps one a session) lives until it is let go.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import threading
from collections import OrderedDict
from concurrent.futures import Future
from typing import Any, Callable, Hashable, Sequence, TypeVar

import numpy as np
import torch
from PIL import Image

from explorer.core import settings

V = TypeVar("V")
_IDS = itertools.count()


def owner_key(kind: str) -> str:
    """A key of its own for one encoder or method object (``sgi#3``): two SGIs with other options keep apart."""
    return f"{kind}#{next(_IDS)}"


def image_key(image: Image.Image) -> str:
    """A content hash: two images with the same pixels share one state."""
    h = hashlib.sha1(f"{image.mode}{image.size}".encode())
    h.update(image.tobytes())
    return h.hexdigest()


_SCALARS = (str, int, float, bool, bytes, type(None))


def _nbytes(array: torch.Tensor | np.ndarray) -> int:
    return array.nbytes if isinstance(array, np.ndarray) else array.element_size() * array.nelement()


class ImageState:
    """One image (``image``, its content ``key``), the view of a picture it holds (``view``), the work computed of it
    and what is worked out for each caption (``by_caption``). Safe to share between threads: ``kept``'s compute runs
    outside the lock (two threads may both compute a value once; the first kept wins).

    The work is typed, as segment-anything's predictor holds named attributes: each kind of work is a dataclass its
    module declares (the encoder's ``ImageFeatures``, SGI's ``RegionFeatures``, the objects ``Found``, a view's
    ``Frame``, the display's ``Shown``), kept once per owner: a method's or an encoder's ``key``, a proposer's name,
    a display's side, or None for the image's own (its objects, its frame)."""

    def __init__(self, image: Image.Image, key: str) -> None:
        self.image, self.key = image, key
        self.view = "whole"  # the view of a picture it holds (``explorer.images.fit``): "whole", or "raw"
        self._kept: dict[tuple[type, Hashable], Any] = {}  # (kind, owner) -> a value of that kind
        self._started: dict[str, Future] = {}  # work running on a worker, by its name (a proposer's)
        self._by_caption: dict[tuple[Hashable, str], Any] = {}  # (owner, caption): its own slot, apart from the work
        self._counted: dict[int, Any] = {}  # id -> each array and container weighed, held so its id is not reused
        self.nbytes = len(image.getbands()) * image.width * image.height
        self._lock = threading.Lock()

    def has(self, kind: type, owner: Hashable = None) -> bool:
        """Whether ``owner`` keeps a ``kind`` of this image."""
        with self._lock:
            return (kind, owner) in self._kept

    def find(self, kind: type[V], owner: Hashable = None) -> V | None:
        """The ``kind`` ``owner`` keeps of this image; None where it keeps none."""
        with self._lock:
            return self._kept.get((kind, owner))

    def keep(self, value: V, owner: Hashable = None) -> V:
        """Keep ``value`` as ``owner``'s of its kind (one kept already stays, and is returned)."""
        with self._lock:
            kept = self._kept.setdefault((type(value), owner), value)
            if kept is value:
                self._weigh(value)
            return kept

    def kept(self, kind: type[V], compute: Callable[[], V], owner: Hashable = None) -> V:
        """The ``kind`` ``owner`` keeps of this image (a dataclass its module declares), else ``compute()``, kept:
        one value of each kind per owner."""
        found = self.find(kind, owner)
        if found is not None:
            return found
        value = compute()
        if type(value) is not kind:
            raise TypeError(f"{owner} keeps a {type(value).__name__} where it declares a {kind.__name__}")
        return self.keep(value, owner)

    def _weigh(self, value: Any) -> None:
        """Add the tensors and arrays ``value`` holds (in dataclasses, tuples, lists, dicts) that this state does not
        hold already: a container kept before (the regions in every SGI score) is not walked again. Work started
        (``start``: a proposals future) weighs nothing; its result is kept, and weighed, once made."""
        if isinstance(value, _SCALARS) or id(value) in self._counted:
            return
        self._counted[id(value)] = value
        if isinstance(value, (torch.Tensor, np.ndarray)):
            self.nbytes += _nbytes(value)
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            for f in dataclasses.fields(value):
                self._weigh(getattr(value, f.name))
        elif isinstance(value, (tuple, list)):
            for v in value:
                self._weigh(v)
        elif isinstance(value, dict):
            for v in value.values():
                self._weigh(v)

    def by_caption(self, owner: Hashable, captions: Sequence[str],
                   work_out: Callable[[list[str]], Sequence[V]]) -> list[V]:
        """What ``owner`` (a method's or an explainer's key) works out for each caption: those kept are read, the rest
        worked out together by ``work_out(new captions)`` and kept (a value kept meanwhile by another thread stays)."""
        with self._lock:
            new = [c for c in dict.fromkeys(captions) if (owner, c) not in self._by_caption]
        found = dict(zip(new, work_out(new) if new else []))
        with self._lock:
            for caption, value in found.items():
                if (owner, caption) not in self._by_caption:
                    self._by_caption[(owner, caption)] = value
                    self._weigh(value)
            return [self._by_caption[(owner, c)] for c in captions]

    def start(self, name: str, submit: Callable[[], Future]) -> Future:
        """The work started under ``name`` (a proposer's), else ``submit()`` (run under the lock, so it starts once)."""
        with self._lock:
            if name not in self._started:
                self._started[name] = submit()
            return self._started[name]

    def started(self, name: str) -> bool:
        with self._lock:
            return name in self._started

    def forget(self, name: str) -> None:
        """Drop the work started under ``name`` (given up, to be started again)."""
        with self._lock:
            self._started.pop(name, None)


class ImageStates:
    """The one store of image states: at most ``size`` of them and about ``max_mb`` of memory (None: the settings')."""

    def __init__(self, size: int | None = None, max_mb: float | None = None) -> None:
        self._size, self._max_mb = size, max_mb
        self._states: OrderedDict[str, ImageState] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def size(self) -> int:
        return settings.current().cache_size if self._size is None else self._size

    @property
    def max_bytes(self) -> float:
        return 2**20 * (settings.current().image_states_mb if self._max_mb is None else self._max_mb)

    @property
    def nbytes(self) -> int:
        with self._lock:
            return sum(s.nbytes for s in self._states.values())

    def __len__(self) -> int:
        with self._lock:
            return len(self._states)

    def clear(self) -> None:
        with self._lock:
            self._states.clear()

    def of(self, image: Image.Image | ImageState, key: str | None = None) -> ImageState:
        """The image's state (a state is its own), made empty for an image not kept; ``key``: the state's name where
        it is not the image's content hash (a view of a picture, named by the picture's and the view's)."""
        if isinstance(image, ImageState):
            return image
        key = key or image_key(image)
        with self._lock:
            state = self._states.get(key)
            if state is None:
                state = self._states[key] = ImageState(image, key)
            self._states.move_to_end(key)
            total = sum(s.nbytes for s in self._states.values())
            while len(self._states) > 1 and (len(self._states) > self.size or total > self.max_bytes):
                _, old = self._states.popitem(last=False)
                total -= old.nbytes
            return state


STATES = ImageStates()


def of(image: Image.Image | ImageState) -> ImageState:
    """The state of ``image`` in the one store (a state is its own)."""
    return STATES.of(image)


def forget() -> None:
    """Drop every image's state: a timed run of new images must not find them computed by an earlier run."""
    STATES.clear()
