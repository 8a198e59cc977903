"""Time `python -m explorer eval` in one process and under `torchrun --nproc_per_node=2`, side by side in one run.

Both score the same world items by the same methods with one torch thread per process (OMP_NUM_THREADS=1), each
into a fresh shard folder; the whole command is timed, model loading and start-up included. Also times one
process with two threads, what plain torch threading makes of the same cores. The machine's 1-minute load
average after each run is kept beside it: other work on the same cores slows every run. Checks that the
reports' results are equal, prints the ratio and writes the figures as JSON.

    python scripts/scaling_bench.py [--methods global,sgi] [--split id,shift] [--limit 16] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from explorer.core.distributed import local_launch  # noqa: E402


def timed_eval(eval_args: list[str], out: Path, nproc: int, threads: int) -> tuple[float, dict]:
    """Seconds for one eval command and its report."""
    env = {**os.environ, "OMP_NUM_THREADS": str(threads), "EXPLORER_DEVICE": "cpu"}
    start = time.perf_counter()
    subprocess.run([*local_launch(nproc), "-m", "explorer", *eval_args, "--json", str(out)], cwd=ROOT, env=env,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start, json.loads(out.read_text())


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--methods", default="global,sgi")
    p.add_argument("--split", default="id,shift")
    p.add_argument("--limit", type=int, default=16, help="items per split and kind (4 kinds)")
    p.add_argument("--json", default=str(ROOT / "docs/results/scaling.json"))
    args = p.parse_args(argv)
    eval_args = ["eval", "--benchmark", "world", "--methods", args.methods, "--split", args.split,
                 "--limit", str(args.limit)]
    runs = {"1 process x 1 thread": (1, 1), "torchrun 2 processes x 1 thread": (2, 1), "1 process x 2 threads": (1, 2)}
    figures: dict = {}
    reports = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, (nproc, threads)) in enumerate(runs.items()):
            seconds, report = timed_eval(eval_args, Path(tmp) / f"run{i}.json", nproc, threads)
            items = sum(s["items"] for s in report["shards"])
            figures[name] = {"processes": nproc, "threads_per_process": threads, "seconds": round(seconds, 1),
                             "items": items, "items_per_s": round(items / seconds, 3), "shards": report["shards"],
                             "load_average_after": round(os.getloadavg()[0], 2)}  # others' work shares the cores
            reports.append(report["results"])
            print(f"{name}: {seconds:.1f} s for {items} items", flush=True)
    one, two = (figures[n]["seconds"] for n in list(runs)[:2])
    out = {
        "command": "python -m explorer " + " ".join(eval_args),
        "speedup_2_vs_1": round(one / two, 2),
        "same_results": all(r == reports[0] for r in reports),
        "runs": figures,
        "machine": {"cpus": os.cpu_count(), "cpu": platform.processor() or platform.machine(), "device": "cpu",
                    "torch": torch.__version__},
    }
    print(f"2 processes vs 1: {out['speedup_2_vs_1']}x; same results: {out['same_results']}")
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    return out


if __name__ == "__main__":
    main()
