"""How an encoder's towers run on its device: the numeric precision, fixed batch buckets for the image tower, and an
optional compiled image tower per bucket (CUDA graphs on a GPU), warmed on a background thread.

Batches of images are padded to the next bucket (1, 2, 4, 8, then multiples of 8), so the tower sees a few fixed
shapes: oneDNN and cuBLAS keep their kernels for each shape, and a compiled tower (``compile=True``) is captured once
per bucket. Until a bucket is warmed, its batches run eagerly, so a page that loads a model answers at once. An fp32
tower on the CPU keeps no kernels per shape and runs each batch as it is (``BucketedTower.pads``). On the CPU a large
batch runs as one single-threaded part per torch thread, side by side (``parts``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Sequence

import torch

from explorer.core import cancel
from explorer.core.settings import PRECISIONS
from explorer.models.cores import one_thread

log = logging.getLogger(__name__)

STEP = 8  # buckets above 8 are multiples of this
SPLIT_ROWS = 2 * STEP  # a CPU batch of at least this many rows runs in parts side by side
_PARTS = ThreadPoolExecutor(max_workers=max(1, (os.cpu_count() or 1) - 1), thread_name_prefix="tower-part")


def buckets(max_batch: int) -> list[int]:
    """The batch sizes the image tower runs: 1, 2, 4, 8, then every multiple of 8 up to ``max_batch``."""
    small = [b for b in (1, 2, 4) if b < max_batch]
    return small + list(range(STEP, max_batch + 1, STEP)) if max_batch >= STEP else small + [max_batch]


def bucket_of(n: int, sizes: list[int]) -> int:
    """The smallest bucket that holds ``n`` rows."""
    return next(b for b in sizes if b >= n)


def parts(n: int, threads: int, step: int = STEP) -> list[int]:
    """The rows of each part a CPU batch of ``n`` rows runs as: one part per thread at most, each but the last
    ``n / threads`` rounded to a multiple of ``step`` (STEP for a padded tower, so the parts pad to about the buckets
    the whole would; 1 for one that runs every size as it is: equal parts); one part below SPLIT_ROWS rows.

    Parts on one thread each, side by side, beat one batch on every thread: no op waits at a barrier for the slower
    thread (measured on 2 cores, paired: docs/PERFORMANCE.md, "Design decisions")."""
    if n < SPLIT_ROWS or threads < 2:
        return [n]
    per = max(step, round(n / threads / step) * step)
    sizes: list[int] = []
    while len(sizes) < threads - 1 and n - sum(sizes) > per:
        sizes.append(per)
    return sizes + [n - sum(sizes)]


def cpu_has_native_bf16() -> bool:
    """Whether this CPU multiplies bf16 matrices natively: AMX tiles or AVX512-BF16 dot products (the bench's
    ``analysis.*.embedded`` against ``*.embedded_fp32`` on each: docs/PERFORMANCE.md); elsewhere oneDNN emulates
    bf16."""
    probes = (getattr(torch.cpu, name, None) for name in ("_is_amx_tile_supported", "_is_avx512_bf16_supported"))
    return any(probe is not None and probe() for probe in probes)


def tower_dtypes(precision: str, device: str) -> tuple[torch.dtype | None, torch.dtype | None]:
    """The autocast dtype of the (image, text) towers; None runs fp32.

    On the CPU ``native`` keeps the text tower in fp32: its batches are a few short captions, bound by per-op
    overhead, where bf16's casts cost more than they save.
    """
    if precision not in PRECISIONS:
        raise ValueError(f"unknown precision {precision!r}; known: {', '.join(PRECISIONS)}")
    if precision == "fp32":
        return None, None
    if precision in ("bf16", "fp16"):
        dtype = torch.bfloat16 if precision == "bf16" else torch.float16
        return dtype, dtype
    if device.startswith("cuda"):
        dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        return dtype, dtype
    return (torch.bfloat16 if precision == "native" and cpu_has_native_bf16() else None), None


def autocast(device: str, dtype: torch.dtype | None, cache: bool = True) -> contextlib.AbstractContextManager:
    """Autocast to ``dtype`` on the device's type, or nothing (fp32) when None; ``cache=False`` while capturing a
    graph (its weight casts must be recorded in it). The cache is worth keeping otherwise: without it a bf16 tower
    on the CPU re-casts its weights on every call (docs/PERFORMANCE.md, "Design decisions")."""
    if dtype is None:
        return contextlib.nullcontext()
    return torch.autocast(torch.device(device).type, dtype=dtype, cache_enabled=cache)


Output = torch.Tensor | dict[str, torch.Tensor]


def _map(out: Output, f: Callable[[torch.Tensor], torch.Tensor]) -> Output:
    """``f`` applied to every tensor of a tower's output (a tensor, or dicts and lists of them)."""
    if isinstance(out, dict):
        return {k: _map(v, f) for k, v in out.items()}
    if isinstance(out, (list, tuple)):
        return type(out)(_map(v, f) for v in out)
    return f(out) if isinstance(out, torch.Tensor) else out


def _raise_recompile_limit(n: int) -> None:
    """Let one compiled tower keep a graph per bucket (torch recompiles for each new shape up to a limit)."""
    import torch._dynamo

    config = torch._dynamo.config
    name = "recompile_limit" if hasattr(config, "recompile_limit") else "cache_size_limit"
    setattr(config, name, max(getattr(config, name), n))


class BucketedTower:
    """Runs ``fn`` (pixels (N, 3, H, W) -> a tensor or a dict of tensors, N rows each) on padded, fixed-size batches.

    The buckets in ``warm`` are run once on a background thread at start, so their kernels are made before a user
    waits for them; with ``compile=True`` those buckets get ``torch.compile`` (``reduce-overhead``, that is CUDA
    graphs, on a GPU) instead. A batch whose bucket is not compiled yet runs eagerly meanwhile.
    """

    def __init__(self, fn: Callable[[torch.Tensor], Output], image_size: int, device: str, dtype: torch.dtype | None,
                 max_batch: int = 64, compile: bool = False, warm: Sequence[int] = ()) -> None:
        self.fn, self.image_size, self.device, self.dtype = fn, image_size, device, dtype
        self.sizes = buckets(max_batch)
        self.compiled: Callable[[torch.Tensor], Output] | None = None
        self.ready: set[int] = set()  # buckets whose compiled graph is captured
        self._lock = threading.Lock()  # one compiled call at a time: CUDA graphs share their static buffers
        self.warmed = threading.Event()
        if compile:
            mode = "reduce-overhead" if device.startswith("cuda") else None
            self.compiled = torch.compile(fn, mode=mode, dynamic=False)
            _raise_recompile_limit(len(self.sizes) + 2)
        if warm:
            threading.Thread(target=self.warm_up, args=(list(warm),), name="tower-warm-up", daemon=True).start()
        else:
            self.warmed.set()

    @property
    def max_batch(self) -> int:
        return self.sizes[-1]

    @property
    def pads(self) -> bool:
        """Whether batches run padded to their bucket: where kernels are made or graphs captured per shape (low
        precision on oneDNN, a compiled tower, a GPU). An fp32 tower on the CPU runs each size as it is: MKL's GEMMs
        keep nothing per shape, and padded rows are only work (docs/PERFORMANCE.md, "Design decisions")."""
        return self.compiled is not None or self.dtype is not None or self.device != "cpu"

    def warm_up(self, sizes: list[int]) -> None:
        """Run (or compile and capture: twice, as CUDA graphs record on their second call) each bucket once."""
        try:
            for size in sizes:
                blank = torch.zeros(size, 3, self.image_size, self.image_size, device=self.device)
                if self.compiled is None:
                    self._eager(blank)
                    if self.device == "cpu":  # oneDNN keeps kernels per thread count too: the parts run on one
                        with one_thread():
                            self._eager(blank)
                    continue
                with self._lock, torch.no_grad(), autocast(self.device, self.dtype, cache=False):
                    for _ in range(2):
                        self.compiled(blank)
                self.ready.add(size)
        except Exception:  # a compiler missing or failing: the eager path serves every batch, as without compile
            log.exception("warming the image tower failed; it runs eagerly")
        finally:
            self.warmed.set()

    @torch.no_grad()
    def __call__(self, pixels: torch.Tensor) -> list[Output]:
        """The tower's output for ``pixels`` (N, 3, S, S), one entry per chunk of at most ``max_batch`` rows (its
        padding rows dropped)."""
        out = []
        for i in range(0, len(pixels), self.max_batch):
            cancel.check()  # a page's request given up stops before its next batch (a no-op outside a request)
            chunk = pixels[i : i + self.max_batch].to(self.device)
            split = self.device == "cpu" and self.compiled is None
            sizes = parts(len(chunk), torch.get_num_threads(), STEP if self.pads else 1) if split else [len(chunk)]
            if len(sizes) == 1:
                out.append(self._padded(chunk))
                continue
            first, *rest = torch.split(chunk, sizes)
            others = [_PARTS.submit(self._one_thread, part) for part in rest]
            out += [self._one_thread(first), *(f.result() for f in others)]
        return out

    @torch.no_grad()
    def _one_thread(self, chunk: torch.Tensor) -> Output:
        with one_thread():
            return self._padded(chunk)

    def _padded(self, chunk: torch.Tensor) -> Output:
        """The tower's output for ``chunk`` run as its bucket, padded with zero rows where the tower ``pads``."""
        n = len(chunk)
        size = bucket_of(n, self.sizes) if self.pads else n
        if size > n:
            chunk = torch.cat([chunk, chunk.new_zeros(size - n, *chunk.shape[1:])])
        return _map(self._run(chunk, size), lambda t: t[:n] if t.ndim else t)

    def _run(self, chunk: torch.Tensor, size: int) -> Output:
        compiled = self.compiled
        if compiled is not None and size in self.ready:
            try:
                with self._lock, autocast(self.device, self.dtype, cache=False):
                    return _map(compiled(chunk), torch.Tensor.clone)  # out of the graph's buffers before a replay
            except Exception:  # e.g. a graph called from a thread it cannot serve: eager from now on
                log.exception("the compiled image tower failed; running it eagerly from now on")
                self.compiled = None
        return self._eager(chunk)

    @torch.no_grad()
    def _eager(self, chunk: torch.Tensor) -> Output:
        with autocast(self.device, self.dtype):
            return self.fn(chunk)



def short_text_forward(model: torch.nn.Module, ids: torch.Tensor) -> dict[str, torch.Tensor] | None:
    """open_clip's text tower read only as far as the batch's longest text: token ids (B, context) ->
    ``text_features`` (B, D), the pooled and projected vector, and ``text_tokens`` (B, L, width), every position's
    final-norm output up to there (L <= context).

    A causal text tower's outputs at a position depend on the positions before it alone, so the padding after the
    longest text's end token changes nothing that is read; skipping it cuts the tower's work for short
    captions (12 of 32 positions in the world). The length is rounded up to a multiple of 8 (few shapes). None for
    a tower this does not fit (no causal mask, a class token, pooling at the last position): use the full forward.
    """
    tower = getattr(model, "text", model)
    parts = ("token_embedding", "positional_embedding", "transformer", "ln_final")
    if not all(hasattr(tower, p) for p in parts) or getattr(tower, "attn_mask", None) is None \
            or getattr(tower, "cls_emb", None) is not None or getattr(tower, "text_pool_type", "argmax") != "argmax":
        return None
    end = ids.argmax(dim=-1)  # the end-of-text token has the highest id: where argmax pooling reads
    length = min(ids.shape[1], -(-(int(end.max()) + 1) // STEP) * STEP)
    cast = tower.transformer.get_cast_dtype()
    x = tower.token_embedding(ids[:, :length]).to(cast) + tower.positional_embedding[:length].to(cast)
    x = tower.ln_final(tower.transformer(x, attn_mask=tower.attn_mask[:length, :length]))
    pooled = x[torch.arange(len(x), device=x.device), end]
    proj = getattr(tower, "text_projection", None)
    if proj is not None:
        pooled = proj(pooled) if isinstance(proj, torch.nn.Module) else pooled @ proj
    return {"text_features": pooled, "text_tokens": x}
