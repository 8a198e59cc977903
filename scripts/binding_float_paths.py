"""Binding verdicts on each float path this project meets on a CPU: a ``binding --json`` record (fp32 on a CPU with
AMX and AVX512) beside the same command on the AVX2 path (the kernels told by environment variables to use AVX2 at
most: oneDNN, MKL, ATen, OpenBLAS) and in bf16 (``--precision bf16``, AMX), reading by reading, on each grid whose
default record and another path's are there (``GRIDS``: the default record's name without ``.json``, the AVX2 and
bf16 records named after it).

Each path's record is made first, one after another, then this script compares them and checks, for each path, that
its environment changes the float path (the CPU capability torch reports, and whether a fp32 and a bf16 matmul differ
bitwise from the default path's); on the 4 x 3 grid::

    python -m explorer binding --colors 4 --shapes 3 --widths 16 --renders 2 --json docs/results/binding-small.json
    ONEDNN_MAX_CPU_ISA=AVX2 MKL_ENABLE_INSTRUCTIONS=AVX2 ATEN_CPU_CAPABILITY=avx2 OPENBLAS_CORETYPE=Haswell \\
        python -m explorer binding --colors 4 --shapes 3 --widths 16 --renders 2 --json \\
        docs/results/binding-small-avx2.json
    python -m explorer binding --colors 4 --shapes 3 --widths 16 --renders 2 --precision bf16 --json \\
        docs/results/binding-small-bf16.json
    python scripts/binding_float_paths.py --json docs/results/binding-float-paths.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"
AVX2 = {"ONEDNN_MAX_CPU_ISA": "AVX2", "MKL_ENABLE_INSTRUCTIONS": "AVX2", "ATEN_CPU_CAPABILITY": "avx2",
        "OPENBLAS_CORETYPE": "Haswell"}
PATHS = {  # name: (the record's suffix, environment, precision)
    "default: fp32, AMX / AVX512": ("", {}, "fp32"),
    "fp32, AVX2": ("-avx2", AVX2, "fp32"),
    "bf16, AMX": ("-bf16", {}, "bf16"),
}
GRIDS = {"4 x 3": "binding-small", "8 x 3": "binding-embedded"}
PROBE = """
import hashlib, json, numpy as np, torch
torch.manual_seed(0)
a, b = torch.randn(256, 384), torch.randn(384, 512)
x = np.random.default_rng(0).standard_normal((300, 200))
digest = lambda t: hashlib.sha1(t.numpy().tobytes()).hexdigest()[:12]
print(json.dumps({"capability": torch.backends.cpu.get_cpu_capability(), "fp32_matmul": digest(a @ b),
                  "bf16_matmul": digest((a.bfloat16() @ b.bfloat16()).float()),
                  "numpy_matmul": hashlib.sha1((x @ x.T).tobytes()).hexdigest()[:12]}))
"""


def kernels(env: dict[str, str]) -> dict:
    """What the float path is under ``env``: torch's CPU capability and digests of a fp32, a bf16 and a numpy matmul."""
    out = subprocess.run([sys.executable, "-c", PROBE], env=os.environ | env, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout)


def cpu() -> dict:
    """The CPU's model name and which of the float paths' instruction sets it has."""
    info = Path("/proc/cpuinfo").read_text()
    name = next((line.split(":", 1)[1].strip() for line in info.splitlines() if line.startswith("model name")), "")
    flags = set(next((line.split(":", 1)[1].split() for line in info.splitlines() if line.startswith("flags")), []))
    return {"model": name, "flags": sorted(flags & {"avx2", "avx512f", "avx512_bf16", "amx_bf16", "amx_tile"})}


def compare(records: dict[str, dict]) -> dict[str, dict]:
    """Per reading: each path's verdict (its ``reading``) and adjusted p, and whether every path gives one verdict."""
    first = next(iter(records.values()))["figures"]
    out = {}
    for name in first:
        each = {path: {"reading": r["figures"][name]["reading"], "p_adjusted": r["figures"][name]["null"].get(
            "p_adjusted")} for path, r in records.items()}
        out[name] = {"paths": each, "same": len({e["reading"] for e in each.values()}) == 1}
    return out


def grid(stem: str, results: Path = RESULTS) -> dict | None:
    """One grid's paths whose records are there (record, command, environment, precision, seconds) and its verdicts
    compared, or None where only the default path's record, or not even it, is there."""
    names = {path: f"{stem}{suffix}.json" for path, (suffix, _, _) in PATHS.items()
             if (results / f"{stem}{suffix}.json").exists()}
    if len(names) < 2 or next(iter(PATHS)) not in names:
        return None
    records = {path: json.loads((results / name).read_text()) for path, name in names.items()}
    paths = {path: {"record": f"docs/results/{name}", "command": records[path]["command"],
                    "environment": PATHS[path][1], "precision": PATHS[path][2], "seconds": records[path]["seconds"]}
             for path, name in names.items()}
    verdicts = compare(records)
    return {"paths": paths, "changed": sorted(n for n, v in verdicts.items() if not v["same"]), "verdicts": verdicts}


def report(results: Path = RESULTS) -> dict:
    default = kernels({})
    found = {}
    for path, (_, env, _) in PATHS.items():
        k = kernels(env)
        found[path] = k | {"fp32_matmul_differs": k["fp32_matmul"] != default["fp32_matmul"],
                           "bf16_matmul_differs": k["bf16_matmul"] != default["bf16_matmul"]}
    grids = {name: g for name, stem in GRIDS.items() if (g := grid(stem, results)) is not None}
    return {"command": "python scripts/binding_float_paths.py --json docs/results/binding-float-paths.json",
            "cpu": cpu(), "kernels": found, "grids": grids}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path, required=True, help="where to write the comparison")
    args = parser.parse_args()
    found = report()
    args.json.write_text(json.dumps(found, indent=1) + "\n")
    print(json.dumps({"cpu": found["cpu"], "changed": {g: v["changed"] for g, v in found["grids"].items()}}, indent=1))


if __name__ == "__main__":
    main()
