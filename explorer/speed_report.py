"""How a speed report is kept: printed and written as JSON, the machine it was measured on in one line, and
docs/PERFORMANCE.md's table of one column per device."""

from __future__ import annotations

import json
import resource
from pathlib import Path

import torch

from explorer.models import tower


def emit(report: dict, path: str | None) -> dict:
    """Print a bench script's report, and write it to ``path`` when one is given (its record)."""
    text = json.dumps(report, indent=2)
    print(text)
    if path:
        Path(path).write_text(text + "\n")
    return report


def peak_memory_mb() -> float:
    """Peak resident memory of this process so far (Linux reports KiB)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def machine() -> str:
    """CPU model, the vector kernels torch runs on it and whether it multiplies bf16 natively, cores, memory, and
    torch build, in one line: CPUs of one name differ (an AMD EPYC here was an AVX2 Zen 3 and an AVX512-BF16 Zen 4)."""
    import os
    import platform

    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
               platform.processor() or "unknown CPU") if os.path.exists("/proc/cpuinfo") else platform.processor()
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30 if hasattr(os, "sysconf") else 0
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU"
    bf16 = "native bf16" if tower.cpu_has_native_bf16() else "no native bf16"
    return (f"{cpu} ({torch.backends.cpu.get_cpu_capability()} kernels, {bf16}), {os.cpu_count()} cores, "
            f"{mem:.0f} GiB; {gpu}; torch {torch.__version__} "
            f"({torch.get_num_threads()} threads), Python {platform.python_version()}")


PROFILE_HEADING = "## Where the time goes"


def performance_markdown(reports: list[dict]) -> str:
    """The figures as a table, one column per report (device), with the machine and command of each."""
    names = list(dict.fromkeys(name for r in reports for name in r["figures"]))
    head = " | ".join(f"{r['device']}" for r in reports)
    rows = "\n".join(f"| `{n}` | " + " | ".join(str(r["figures"].get(n, "")) for r in reports) + " |" for n in names)
    where = "\n".join(f"- **{r['device']}**: `{r.get('command', 'python -m explorer bench')}` on "
                      f"{r.get('machine', 'an unrecorded machine')}; model {r['model']}{_precision(r)}."
                      for r in reports)
    gpu = ("" if any(r["device"].startswith("cuda") for r in reports) else
           "\nNo GPU column: these figures were measured on a CPU only. On a machine with one, "
           "`python -m explorer bench --device cuda --json docs/results/bench-cuda.json` measures the same figures "
           "there (autocast bf16/fp16, plus ViT-L-14), and `--beside docs/results/bench-cuda.json` on the CPU run "
           "puts them side by side; `scripts/device_kit.sh` packs what such a machine may lack (spaCy, its English "
           "model, open_clip) for one with no package index.\n")
    return (f"# Performance\n\nMeasured by `python -m explorer bench`, one column per device:\n\n{where}\n\n"
            f"`vitb32` and `vitl14` are ViT-B-32 and ViT-L-14 with random weights (the compute of the pretrained "
            f"ones). `rescore.ms.*` is the p50 of the whole analysis (global, SGI, TFLocal, PowerCLIP) of an image "
            f"whose features are cached, with caption B changed to one not seen before (text encoding and parsing "
            f"included, no image work). `sgi.photo.speedup_vs_naive` is SGI batched / naive on the photo. The "
            f"figures are at the page's precision (`--precision native`); `*.embedded_fp32` are the same analyzes "
            f"with both towers in fp32, where the page's precision is not.\n\n"
            f"| figure | {head} |\n|---|{'---|' * len(reports)}\n{rows}\n{gpu}")


def _precision(report: dict) -> str:
    towers = report.get("precision")
    return f"; image tower {towers['image tower']}, text tower {towers['text tower']}" if towers else ""


def write_performance_markdown(path: Path, reports: list[dict]) -> None:
    """Write the table to ``path``, keeping what the file has from PROFILE_HEADING on."""
    old = path.read_text() if path.exists() else ""
    kept = old[old.index(PROFILE_HEADING):] if PROFILE_HEADING in old else ""
    path.write_text(performance_markdown(reports) + ("\n" + kept if kept else ""))
