"""Region proposals off the critical path: computed once per image on a worker thread, shared by SGI and PowerCLIP.

The proposals of an image are kept in its state (``explorer.core.image_state``): the work started by the proposer's
name, its regions once made as ``Proposed``, owned by that name. An analysis starts its methods' proposers
(``start_ahead``) before it encodes the image, so segmentation runs while the image tower does; the method that needs
them later waits for the same result. That overlap needs a core the towers leave free: on a GPU, or a CPU with more
cores than torch's threads. Where torch's threads take every core, a segmentation beside them stalls the towers'
threads more than it saves (measured: docs/PERFORMANCE.md, "Design decisions"): there the proposals start at once only
inside ``sharing_cores`` (one page analysis), whose thread then runs its torch ops on one thread, leaving the worker a
core, until work that wants every core calls ``make_room``; elsewhere they are made when first asked for.
"""

from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import ExitStack, contextmanager
from contextvars import ContextVar, copy_context
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Callable, Iterator, Sequence

import torch
from PIL import Image

from explorer.core import cancel
from explorer.core.image_state import ImageState
from explorer.images.ink import ink_objects
from explorer.images.objects import Found, box_of, find_objects
from explorer.images.page import Page, page_of
from explorer.images.regions import Region, sam_regions, segment_regions
from explorer.models.cores import one_thread

_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="proposals")

Proposer = Callable[[Image.Image], list[Region]]
Named = tuple[str, Proposer]  # a proposer and its name: methods asking alike share its regions


def begin(state: ImageState, proposer: Named) -> Future[list[Region]]:
    """A proposer's regions of the state's image (``segmentation()``, ``sam()``): started on the worker unless kept
    in the state. Work queued by a page's request that is given up before the worker reaches it is not done (and is
    queued afresh when asked for again)."""
    name, propose = proposer
    submit = lambda: _POOL.submit(copy_context().run, _unless_given_up, propose, state.image.copy())  # noqa: E731
    future = state.start(name, submit)
    if _given_up(future):
        state.forget(name)
        future = state.start(name, submit)
    return future


def _unless_given_up(propose: Proposer, image: Image.Image) -> list[Region]:
    cancel.check()  # the request that queued this image was abandoned or ran over its limit meanwhile
    return propose(image)


def _given_up(future: Future[list[Region]]) -> bool:
    return future.done() and isinstance(future.exception(), cancel.Cancelled)


@dataclass(frozen=True)
class Proposed:
    """What an image's state keeps of one proposer (``ImageState.kept``, owned by the proposer's name): its regions,
    their masks (H, W) of the state's picture."""

    regions: list[Region]


def regions(state: ImageState, proposer: Named) -> list[Region]:
    """A proposer's regions of the image, waiting for the worker where they are still being computed; kept in the
    state once made, where their masks count towards its memory."""
    found = state.kept(Proposed, lambda: Proposed(_made(state, proposer)), proposer[0]).regions
    make_room()
    return found


def _made(state: ImageState, proposer: Named) -> list[Region]:
    try:
        return begin(state, proposer).result()
    except cancel.Cancelled:  # queued by another request, given up before the worker reached it
        cancel.check()  # this request too: it stops
        return begin(state, proposer).result()  # else queued afresh for this one


def segmentation(max_regions: int = 24) -> Named:
    """Felzenszwalb segments (on a copy of at most 256 px), named so every method asking alike shares them."""
    return f"segments:{max_regions}", partial(segment_regions, max_regions=max_regions)


def sam(checkpoint: str, device: str, max_regions: int = 24) -> Named:
    """segment-anything's automatic masks on the encoder's device (its points in batches there)."""
    return f"sam:{checkpoint}:{max_regions}", partial(sam_regions, checkpoint=checkpoint, device=device,
                                                      max_regions=max_regions)


def core_to_spare(device: str) -> bool:
    """Whether a worker thread can segment while the towers run: they are on a GPU, or leave a CPU core free."""
    return device.startswith("cuda") or (os.cpu_count() or 1) > torch.get_num_threads()


@dataclass
class _Sharing:
    """One ``sharing_cores`` block: the proposals started beside it, and its thread's one-core limit while it has
    given the other cores to the worker (None while it has not)."""

    pending: list[Future[list[Region]]] = field(default_factory=list)
    limit: ExitStack | None = None


_SHARING: ContextVar[_Sharing | None] = ContextVar("core_sharing", default=None)


@contextmanager
def sharing_cores() -> Iterator[None]:
    """A block (one page analysis) in which a new image's proposals start at once even where no core is to spare.

    While they run, this thread's torch ops run on one thread: with all of torch's threads each parallel op would
    wait on the one that shares its core with the worker. Its first stages (texts, the image's features, the crop
    views) are small ops that gain little from a second thread, so the segmentation comes nearly free (measured,
    paired: docs/PERFORMANCE.md, "Design decisions"). ``make_room`` gives the cores back.
    """
    token = _SHARING.set(_Sharing())
    try:
        yield
    finally:
        _give_cores_back()
        _SHARING.reset(token)


def make_room() -> None:
    """Before work that wants every core (the SGI crops' tower) or the proposals themselves: wait for the proposals
    started beside this ``sharing_cores`` block and give its thread's cores back. Elsewhere nothing."""
    sharing = _SHARING.get()
    if sharing is not None and sharing.pending:
        wait(sharing.pending)
        sharing.pending.clear()
    _give_cores_back()


def _give_cores_back() -> None:
    sharing = _SHARING.get()
    if sharing is not None and sharing.limit is not None:
        sharing.limit.close()
        sharing.limit = None


def _start_beside(state: ImageState, proposer: Named) -> None:
    """Inside ``sharing_cores`` on a CPU whose cores torch's threads take: start the proposals and yield a core."""
    sharing = _SHARING.get()
    if sharing is None:
        return
    future = begin(state, proposer)
    if future.done():
        return
    sharing.pending.append(future)
    if sharing.limit is None and torch.get_num_threads() > 1:
        sharing.limit = ExitStack()
        sharing.limit.enter_context(one_thread())


def start_ahead(states: Sequence[ImageState], proposers: Sequence[Named], device: str) -> None:
    """Start the proposers on the images before their features are encoded: always where a core is to spare
    (``core_to_spare``), else inside ``sharing_cores``; otherwise they are made when first asked for."""
    start = begin if core_to_spare(device) else _start_beside
    for state in states:
        for proposer in proposers:
            start(state, proposer)


def objects(state: ImageState) -> Found:
    """The flat objects of the state's picture, kept in the state: drawn on plain paper, read at the drawing's own
    scale (``ink.ink_objects``) on its page (``page.read_page``: a photographed sheet upright and evened, rules painted
    out), moved back onto the picture; else from the segmentation SGI and PowerCLIP share (``objects.find_objects``)."""
    def find() -> Found:
        page = page_of(state)
        drawn = ink_objects(page.picture, page.changes)
        if drawn is None:
            return find_objects(state.image, regions(state, segmentation()))
        return on_picture(drawn, page) if page.crop is not None else drawn

    return state.kept(Found, find)


def on_picture(found: Found, page: Page) -> Found:
    """Objects found on a turned page, moved back onto the picture's pixels."""
    objects = []
    for o in found.objects:
        mask, core = page.map_to_frame(o.mask), page.map_to_frame(o.core)
        if core.any():
            objects.append(replace(o, mask=mask, core=core, box=box_of(core)))
    text = tuple(tuple(int(round(v)) for v in page.box_to_frame(b)) for b in found.text)
    return replace(found, objects=tuple(objects), touching=found.touching if len(objects) == len(found.objects) else (),
                   text=text)  # type: ignore[arg-type]
