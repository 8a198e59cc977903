"""``torch.distributed`` plumbing for torchrun: the process group, this rank, and the few collectives we use."""

from __future__ import annotations

import logging
import os
import socket
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator

import torch
import torch.distributed as dist

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Context:
    """This process's rank among ``world_size`` (world size 1 without torchrun)."""

    rank: int = 0
    world_size: int = 1

    @property
    def is_main(self) -> bool:
        return self.rank == 0


SINGLE = Context()


def init() -> Context:
    """Join the process group torchrun describes in ``WORLD_SIZE``, ``RANK``, ``LOCAL_RANK`` and ``MASTER_*``."""
    if int(os.environ.get("WORLD_SIZE", "1")) == 1:
        return SINGLE
    if not dist.is_initialized():
        cuda = torch.cuda.is_available()
        if cuda:  # "cuda" then means this rank's own GPU
            torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
        dist.init_process_group("cpu:gloo,cuda:nccl" if cuda else "gloo")  # NCCL for CUDA tensors, gloo for the rest
    ctx = Context(dist.get_rank(), dist.get_world_size())
    log.info("rank %d of %d (%s)", ctx.rank, ctx.world_size, dist.get_backend())
    return ctx


@contextmanager
def session() -> Iterator[Context]:
    """``init()`` for the length of a command; the process group is torn down after it."""
    ctx = init()
    try:
        yield ctx
    finally:
        if ctx.world_size > 1:
            dist.destroy_process_group()


def total(value: float, ctx: Context) -> float:
    """The sum of ``value`` over all ranks."""
    if ctx.world_size == 1:
        return value
    t = torch.tensor([value], dtype=torch.float64)
    dist.all_reduce(t)
    return t.item()


def gather(obj: Any, ctx: Context) -> list[Any]:
    """Every rank's ``obj``, in rank order, on every rank (any picklable object)."""
    if ctx.world_size == 1:
        return [obj]
    out: list[Any] = [None] * ctx.world_size
    dist.all_gather_object(out, obj)
    return out


def broadcast(obj: Any, ctx: Context) -> Any:
    """Rank 0's ``obj`` on every rank."""
    if ctx.world_size == 1:
        return obj
    box = [obj]
    dist.broadcast_object_list(box, src=0)
    return box[0]


def local_launch(nproc: int) -> list[str]:
    """The command prefix that runs ``nproc`` processes here: torchrun on a free loopback port, or plain python."""
    if nproc == 1:
        return [sys.executable]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return [sys.executable, "-m", "torch.distributed.run", f"--nproc_per_node={nproc}", "--master_addr=127.0.0.1",
            f"--master_port={port}"]
