"""One thread's torch ops on a single core, leaving every other thread as it was.

``torch.set_num_threads`` also sets the process-wide default that each thread takes on its first torch op, for good:
a request thread that the page starts while another has lowered it would keep one thread. OpenMP's own setting
(through threadpoolctl) belongs to the calling thread alone; oneDNN and torch's parallel loops read it there.
"""

from __future__ import annotations

from contextlib import contextmanager
from functools import lru_cache
from typing import Iterator

import torch
from threadpoolctl import ThreadpoolController


@lru_cache(maxsize=1)
def _controller() -> ThreadpoolController:
    return ThreadpoolController()  # finds the OpenMP runtime torch loaded, once (so that each limit after it is cheap)


@contextmanager
def one_thread() -> Iterator[None]:
    """This thread's torch ops run on one OpenMP thread inside the block; its own setting comes back after."""
    torch.get_num_threads()  # torch sets a thread's OpenMP threads at its first op: let that happen before the limit
    with _controller().limit(limits=1, user_api="openmp"):
        yield
