"""One image's state: everything the models and methods compute of it, in one object, kept in one bounded store.

An analysis asks ``of(image)`` once (the image's content is hashed there) and hands the state down, as
segment-anything's ``SamPredictor.set_image`` keeps an image's work for its ``predict`` calls:
- the encoder keeps its global and patch features in it (``DualEncoder.encode_image``, ``DualEncoder.fill``);
- the region proposals their worker's result (``proposals.begin``, ``proposals.regions``), shared by SGI and PowerCLIP;
- each method its own image-side work (SGI's region embeddings, PowerCLIP's masks and patch groups, TFLocal's keys)
  under its own ``key``;
- what is worked out for a caption (each method's scores, ``ScoringMethod.score``; the explainers' maps,
  ``explorer.explain.looks``) in a slot of its own, ``by_caption``: a caption is data there, never a name that could
  meet a method's work, and a caption edit finds the rest and works out only itself.
What is computed of a caption is kept by caption, not here: ``DualEncoder.encode_texts``, ``text.PARSES``.

The store holds at most the ``cache_size`` setting's count of states and, least recently used first out, about the
``image_states_mb`` setting's memory: a state weighs its image and the tensors and arrays it holds (each counted
once), and the store evicts when a state is asked for.
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
    """One image (``image``, its content ``key``), the work computed of it by name, and what is worked out for each
    caption (``by_caption``). Safe to share between threads: ``compute`` runs outside the lock (two threads may both
    compute a value once; the first kept wins)."""

    def __init__(self, image: Image.Image, key: str) -> None:
        self.image, self.key = image, key
        self.view = "whole"  # the view of a picture it holds (``explorer.images.fit``): "whole", or "raw"
        self._values: dict[Hashable, Any] = {}
        self._by_caption: dict[tuple[Hashable, str], Any] = {}  # (owner, caption): its own slot, apart from the work
        self._counted: dict[int, Any] = {}  # id -> each array and container weighed, held so its id is not reused
        self.nbytes = len(image.getbands()) * image.width * image.height
        self._lock = threading.Lock()

    def __contains__(self, name: Hashable) -> bool:
        with self._lock:
            return name in self._values

    def get(self, name: Hashable) -> Any:
        with self._lock:
            return self._values[name]

    def put(self, name: Hashable, value: V) -> V:
        """Keep ``value`` under ``name`` (a value kept there already stays, and is returned)."""
        with self._lock:
            if name in self._values:
                return self._values[name]
            self._values[name] = value
            self._weigh(value)
            return value

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

    def get_or_compute(self, name: Hashable, compute: Callable[[], V]) -> V:
        """The value kept under ``name``, else ``compute()``, kept."""
        with self._lock:
            if name in self._values:
                return self._values[name]
        return self.put(name, compute())

    def kept(self, owner: Hashable, kind: type[V], compute: Callable[[], V]) -> V:
        """``owner``'s own work on this image (a method's ``key``), of the dataclass ``kind`` it declares for it, else
        ``compute()``, kept: one value of each kind per owner."""
        value = self.get_or_compute((owner, kind), compute)
        if not isinstance(value, kind):
            raise TypeError(f"{owner} keeps a {type(value).__name__} where it declares a {kind.__name__}")
        return value

    def start(self, name: Hashable, submit: Callable[[], Future]) -> Future:
        """The work kept under ``name``, else ``submit()`` (run under the lock, so it starts once), kept."""
        with self._lock:
            if name not in self._values:
                self._values[name] = submit()
            return self._values[name]

    def forget(self, name: Hashable) -> None:
        """Drop the value under ``name`` (work given up, to be started again)."""
        with self._lock:
            self._values.pop(name, None)


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
