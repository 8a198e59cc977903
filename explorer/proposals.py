"""Region proposals off the critical path: computed once per image on a worker thread, shared by SGI and PowerCLIP.

A method starts its proposals when the encoder first sees an image (an encoder image hook), so segmentation runs
while the image tower does; the method that needs them later waits for the same result. That overlap needs a core
the towers leave free: on a GPU, or a CPU with more cores than torch's threads. Where torch's threads take every
core, a segmentation beside them stalls the towers' threads more than it saves (measured on 2 cores: 25 ms more per
analysis), so there the proposals are made when first asked for.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from typing import Callable

import torch
from PIL import Image

from explorer.cache import LRUCache
from explorer.encoders import DualEncoder, image_key
from explorer.regions import Region, sam_regions, segment_regions

_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="proposals")
_LOCK = threading.Lock()
_FUTURES: LRUCache[Future[list[Region]]] = LRUCache()

Proposer = Callable[[Image.Image], list[Region]]


def start(image: Image.Image, proposer: tuple[str, Proposer]) -> Future[list[Region]]:
    """A proposer's regions of the image (``segmentation()``, ``sam()``): started on the worker unless known."""
    name, propose = proposer
    key = f"{image_key(image)}:{name}"
    with _LOCK:
        if key in _FUTURES:
            return _FUTURES.get(key)
        return _FUTURES.put(key, _POOL.submit(propose, image.copy()))


def forget() -> None:
    """Drop every image's proposals: a timed run of new images must not find them made by an earlier run."""
    with _LOCK:
        _FUTURES.clear()


def regions(image: Image.Image, proposer: tuple[str, Proposer]) -> list[Region]:
    """A proposer's regions of the image, waiting for the worker where they are still being computed."""
    return start(image, proposer).result()


def segmentation(max_regions: int = 24) -> tuple[str, Proposer]:
    """Felzenszwalb segments (on a copy of at most 256 px), named so every method asking alike shares them."""
    return f"segments:{max_regions}", partial(segment_regions, max_regions=max_regions)


def sam(checkpoint: str, device: str, max_regions: int = 24) -> tuple[str, Proposer]:
    """segment-anything's automatic masks on the encoder's device (its points in batches there)."""
    return f"sam:{checkpoint}:{max_regions}", partial(sam_regions, checkpoint=checkpoint, device=device,
                                                      max_regions=max_regions)


def core_to_spare(device: str) -> bool:
    """Whether a worker thread can segment while the towers run: they are on a GPU, or leave a CPU core free."""
    return device.startswith("cuda") or (os.cpu_count() or 1) > torch.get_num_threads()


def start_on_new_images(encoder: DualEncoder, proposer: tuple[str, Proposer]) -> None:
    """Start the proposer on every image the encoder sees for the first time, before it encodes it, where a core is
    to spare (``core_to_spare``); otherwise the proposals are made when first asked for."""
    if core_to_spare(encoder.device):
        encoder.image_hooks[proposer[0]] = lambda image: start(image, proposer)
