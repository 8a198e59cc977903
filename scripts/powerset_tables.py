"""Every figure of docs/powerclip.md's "Measured" section: powerset enumeration against the NLAs, time and error.

Measured with the project's own functions (``explorer.methods.powerclip.alignment``, ``explorer.methods.powerclip.method``), in float64
on one torch thread, with fixed seeds:

* ``time``: median wall and thread CPU time in ms (the calls taking turns; speed-ups: the median of each round's
  ratio of CPU times) at M = 12 and M = 14 regions, N = 49 and 196 patches, D = 512, K = 6 nodes, random inputs
  (Gaussian tokens, random overlapping masks): the exact grouped enumeration (``exact_alignment``: max, soft max,
  r2t), plain enumeration pooling every subset's union in D (the same three aggregates, written here as the
  baseline), NLA-max including ``region_scores``, and ``nla_scan``. At M = 64 (N = 196): every additive NLA
  (``region_scores``, NLA-max, NLA-soft, its bound, NLA-r2t with its bracket) together, and NLA-scan.
* ``errors``: at M = 12 over ``draws`` draws of two kinds, "iid" (Gaussian tokens and nodes, random overlapping
  masks) and "cone" (tokens = shared direction + per-object direction + noise, disjoint object masks over part
  of the grid, each node a noisy patch): each NLA against the enumeration of what it computes, the additive
  surrogate and NLA-scan against the exact cosine (maxima; best-subset Jaccard, mean).
* ``world_clip``: the embedded world-clip model on 16 world swap images (8 heldout attribute items, both images,
  each with the tree nodes of both captions), with 12 random boxes and with segmentation regions (at most 12):
  NLA-scan and the surrogate's NLA-max against the exact best-subset cosine.

Writes ``docs/results/powerset-tables.json`` (with the command, torch version, thread count and load) and prints it.

    python scripts/powerset_tables.py [--out docs/results/powerset-tables.json]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from explorer.methods.powerclip import alignment as ps
from scripts.provenance import environment, write_report

OUT = Path("docs/results/powerset-tables.json")
Problem = tuple[torch.Tensor, torch.Tensor, torch.Tensor]  # patches (N, D), masks (M, N) bool, nodes (K, D)


# --- inputs -------------------------------------------------------------------------------------


def iid_problem(m: int, n: int, d: int, k: int, seed: int, density: float = 0.25) -> Problem:
    """Gaussian tokens and nodes; region masks holding each patch with probability ``density``, none empty."""
    g = torch.Generator().manual_seed(seed)
    patches = torch.randn(n, d, generator=g, dtype=torch.float64)
    texts = torch.randn(k, d, generator=g, dtype=torch.float64)
    masks = torch.rand(m, n, generator=g, dtype=torch.float64) < density
    masks[torch.arange(m), torch.randint(n, (m,), generator=g)] = True
    return patches, masks, texts


def cone_problem(m: int, n: int, d: int, k: int, seed: int) -> Problem:
    """Tokens in a cone: shared direction + their object's direction + noise; disjoint object masks (about 1/(m + 1)
    of the patches is background, in no region); each node a random patch plus noise."""
    g = torch.Generator().manual_seed(seed)
    directions = F.normalize(torch.randn(m + 1, d, generator=g, dtype=torch.float64), dim=-1)
    owner = torch.randint(-1, m, (n,), generator=g)
    owner[torch.randperm(n, generator=g)[:m]] = torch.arange(m)  # every object owns at least one patch
    noise = lambda rows: 0.3 * torch.randn(rows, d, generator=g, dtype=torch.float64) / math.sqrt(d)
    patches = directions[0] + 0.7 * torch.where(owner[:, None] >= 0, directions[1:][owner.clamp_min(0)], 0.0) + noise(n)
    masks = owner[None, :] == torch.arange(m)[:, None]
    picked = torch.randint(n, (k,), generator=g)
    texts = patches[picked] + noise(k)
    return patches, masks, texts


# --- the baseline and the timing ---------------------------------------------------------------


def plain_enumeration(patches: torch.Tensor, masks: torch.Tensor, texts: torch.Tensor, tau: float = ps.TAU) -> tuple:
    """Max, soft max and r2t by pooling each subset's union of unit patches in D (no grouping): the naive way."""
    unions = (ps.subset_masks(masks.shape[0]).double() @ masks.double() > 0).double()  # (2^M - 1, N)
    pooled = F.normalize(unions @ F.normalize(patches, dim=-1), dim=-1)
    sims = pooled @ F.normalize(texts, dim=-1).T
    return sims.max(0).values, torch.logsumexp(tau * sims, 0) / tau, float(sims.max(1).values.mean())


def additive_nlas(patches: torch.Tensor, masks: torch.Tensor, texts: torch.Tensor) -> tuple:
    """Every additive NLA from scratch: region_scores, NLA-max, NLA-soft, its bound, NLA-r2t with its bracket."""
    a = ps.region_scores(patches, masks, texts)
    return ps.nla_max(a), ps.nla_soft(a), ps.soft_gap_bound(a), ps.nla_r2t(a)


def rounds(fns: dict[str, Callable[[], object]], repeat: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Wall and thread CPU times in ms of each function over ``repeat`` rounds, the functions taking turns in each."""
    wall: dict[str, list[float]] = {name: [] for name in fns}
    cpu: dict[str, list[float]] = {name: [] for name in fns}
    for fn in fns.values():  # warm-up
        fn()
    for _ in range(repeat):
        for name, fn in fns.items():
            start, start_cpu = time.perf_counter_ns(), time.thread_time_ns()
            fn()
            cpu[name].append((time.thread_time_ns() - start_cpu) / 1e6)
            wall[name].append((time.perf_counter_ns() - start) / 1e6)
    return wall, cpu


def medians(wall: dict[str, list[float]], cpu: dict[str, list[float]]) -> dict:
    """``NAME``: the median wall time, ``NAME_cpu``: the median of this thread's CPU time (with one torch thread the
    work runs on the calling thread, so it is the cost without the waits a shared machine adds); ``NAME_iqr`` and
    ``NAME_cpu_iqr``: the first and third quartiles (how noisy the machine was)."""
    out: dict = {}
    for name, times in wall.items():
        for key, t in ((name, times), (f"{name}_cpu", cpu[name])):
            q1, _, q3 = statistics.quantiles(t, n=4)
            out[key], out[f"{key}_iqr"] = statistics.median(t), [q1, q3]
    return out


def time_row(m: int, n: int, d: int = 512, k: int = 6, repeat: int = 81, seed: int = 0) -> dict:
    """Exact, plain, NLA-max (with region_scores) and NLA-scan at one size: medians in ms and the speed-ups (CPU)."""
    p, b, t = iid_problem(m, n, d, k, seed)
    wall, cpu = rounds(
        {
            "exact_ms": lambda: ps.exact_alignment(p, b, t),
            "plain_ms": lambda: plain_enumeration(p, b, t),
            "nla_max_ms": lambda: ps.nla_max(ps.region_scores(p, b, t)),
            "nla_scan_ms": lambda: ps.nla_scan(p, b, t),
        },
        repeat,
    )
    speedups = {  # the median over rounds of each round's ratio of CPU times (the two calls ran side by side)
        f"{fast}_speedup_vs_{slow}": statistics.median(x / y for x, y in zip(cpu[f"{slow}_ms"], cpu[f"{fast}_ms"]))
        for fast in ("nla_max", "nla_scan")
        for slow in ("exact", "plain")
    }
    return medians(wall, cpu) | speedups


def time_big(m: int, n: int, d: int = 512, k: int = 6, repeat: int = 81, seed: int = 0) -> dict:
    """At a size beyond enumeration: every additive NLA together, and NLA-scan (medians in ms)."""
    p, b, t = iid_problem(m, n, d, k, seed, density=0.05)
    fns = {"additive_nlas_ms": lambda: additive_nlas(p, b, t), "nla_scan_ms": lambda: ps.nla_scan(p, b, t)}
    return medians(*rounds(fns, repeat))


# --- the errors ---------------------------------------------------------------------------------


def jaccard(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Jaccard index of boolean subsets, column by column: (M, K), (M, K) -> (K,)."""
    return (x & y).sum(0).double() / (x | y).sum(0).clamp_min(1).double()


def draw_errors(p: torch.Tensor, b: torch.Tensor, t: torch.Tensor, tau: float = ps.TAU) -> dict[str, float]:
    """One draw: each NLA against the enumeration of its quantity, surrogate and NLA-scan against the exact cosine."""
    m = b.shape[0]
    subsets = ps.subset_masks(m)  # (2^M - 1, M)
    a = ps.region_scores(p, b, t)  # (M, K)
    sums = subsets.double() @ a  # the surrogate of every subset, enumerated
    exact = ps.exact_alignment(p, b, t, tau=tau)
    best, soft, bound = ps.nla_max(a), ps.nla_soft(a, tau), ps.soft_gap_bound(a, tau)
    r2t, enumerated_r2t = ps.nla_r2t(a), float(sums.max(1).values.mean())
    scan, scan_subsets = ps.nla_scan(p, b, t)
    exact_subsets = subsets[exact.best_subset].T  # (M, K)
    full = subset_similarities_full(p, b, t)
    return {
        "nla_max_vs_enumerated": float((best - sums.max(0).values).abs().max()),
        "nla_soft_vs_enumerated_lse": float((soft - torch.logsumexp(tau * sums, 0) / tau).abs().max()),
        "soft_minus_max": float((soft - best).max()),
        "soft_minus_max_min": float((soft - best).min()),
        "soft_gap_bound": float(bound.max()),
        "soft_gap_slack_min": float((bound - (soft - best)).min()),
        "r2t_estimate_vs_enumerated": abs(r2t.estimate - enumerated_r2t),
        "r2t_error_bound": r2t.error_bound,
        "r2t_slack": r2t.error_bound - abs(r2t.estimate - enumerated_r2t),
        "surrogate_max_vs_cosine_max": float((best - exact.best).abs().max()),
        "surrogate_soft_vs_cosine_soft": float((soft - exact.soft).abs().max()),
        "surrogate_jaccard": float(jaccard(ps.nla_best_subset(a), exact_subsets).mean()),
        "scan_vs_cosine_max": float((exact.best - scan).max()),
        "scan_below_cosine_max_min": float((exact.best - scan).min()),
        "scan_above_floor_min": float((scan - torch.maximum(full, exact_singles(p, b, t))).min()),
        "scan_jaccard": float(jaccard(scan_subsets, exact_subsets).mean()),
    }


def subset_similarities_full(p: torch.Tensor, b: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    """c_k(all regions), (K,)."""
    return ps.exact_alignment(p, b.any(0, keepdim=True), t).best


def exact_singles(p: torch.Tensor, b: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    """max_i c_k({i}), (K,)."""
    return torch.stack([ps.exact_alignment(p, b[i : i + 1], t).best for i in range(b.shape[0])]).max(0).values


# averaged over draws; floors and slacks take the least, the rest the most
MEANS = ("surrogate_jaccard", "scan_jaccard")
LEASTS = (
    "soft_minus_max_min", "soft_gap_slack_min", "r2t_slack", "scan_below_cosine_max_min", "scan_above_floor_min",
)


def error_table(
    m: int = 12, draws: int = 20, n: int = 49, d: int = 512, k: int = 6, tau: float = ps.TAU, seed: int = 0
) -> dict[str, dict[str, float]]:
    """``{"iid" | "cone": {quantity: max (or mean, or least) over draws}}`` at M = m."""
    out = {}
    for kind, make in (("iid", iid_problem), ("cone", cone_problem)):
        rows = [draw_errors(*make(m, n, d, k, seed + i), tau=tau) for i in range(draws)]
        out[kind] = {
            key: (statistics.fmean if key in MEANS else min if key in LEASTS else max)([r[key] for r in rows])
            for key in rows[0]
        }
    return out


# --- the embedded model -------------------------------------------------------------------------


def world_clip_figures(encoder: object, items: int = 8, m: int = 12) -> dict[str, dict[str, float]]:
    """NLA-scan and the surrogate against the exact best-subset cosine on world images, per region source."""
    from explorer import world
    from explorer.language.tree import parse_tree
    from explorer.methods.powerclip.method import PowerCLIP

    cases = []
    for item in world.swap_items("heldout", "attribute", items):
        nodes = [node.text for c in item.captions for node in parse_tree(c)]
        texts = torch.stack([f.embedding for f in encoder.encode_texts(nodes)]).double()
        for scene in item.images:
            cases.append((scene.render(encoder.image_size), texts))
    out = {}
    for source in ("random", "segments"):
        scan_gaps, surrogate_gaps, sizes = [], [], []
        for i, (image, texts) in enumerate(cases):
            method = PowerCLIP(encoder, regions=source, n_random=m, seed=i, max_regions=m)
            feats = encoder.encode_image(image)
            _, masks = method.region_masks(image, feats.grid)
            patches = feats.patches.double()
            exact = ps.exact_alignment(patches, masks, texts)
            scan, _ = ps.nla_scan(patches, masks, texts)
            scan_gaps.append(exact.best - scan)
            surrogate_gaps.append((ps.nla_max(ps.region_scores(patches, masks, texts)) - exact.best).abs())
            sizes.append(masks.shape[0])
        scan_all, surrogate_all = torch.cat(scan_gaps), torch.cat(surrogate_gaps)
        out[source] = {
            "images": len(cases),
            "mean_regions": statistics.fmean(sizes),
            "scan_below_exact_max": float(scan_all.max()),
            "scan_below_exact_mean": float(scan_all.mean()),
            "scan_below_exact_min": float(scan_all.min()),
            "surrogate_off_max": float(surrogate_all.max()),
            "surrogate_off_mean": float(surrogate_all.mean()),
        }
    return out


# --- the run ------------------------------------------------------------------------------------


def tables(encoder: object | None, quick: bool = False) -> dict:
    """Every table; ``quick`` shrinks every size (for the tests), ``encoder`` None skips the world-clip figures."""
    if quick:
        sizes, big, repeat, errors = ((4, (9, 16)), (5, (9,))), (12, 16), 3, error_table(m=5, draws=2, n=16, d=8, k=3)
    else:
        sizes, big, repeat, errors = ((12, (49, 196)), (14, (49, 196))), (64, 196), 81, error_table()
    timing = {f"m{m}": {f"n{n}": time_row(m, n, repeat=repeat) for n in ns} for m, ns in sizes}
    timing[f"m{big[0]}"] = {f"n{big[1]}": time_big(*big, repeat=repeat)}
    out = {"time": timing, "errors": errors}
    if encoder is not None:
        out["world_clip"] = world_clip_figures(encoder, items=1, m=4) if quick else world_clip_figures(encoder)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    from explorer.models.loader import load_encoder

    load = os.getloadavg()
    start = time.perf_counter()
    report = tables(load_encoder())
    report = {
        "command": "python scripts/powerset_tables.py",
        "environment": environment(
            start, cpus=os.cpu_count(), load_average_start=[round(x, 2) for x in load], dtype="float64", tau=ps.TAU
        ),
    } | report
    write_report(report, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
