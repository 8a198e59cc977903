"""What a results script records beside its figures, and how it writes them: one place for the scripts in scripts/."""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path

import torch


def environment(start: float, **extra: object) -> dict:
    """torch version, thread count, Python, the load average now and the seconds since ``start`` (perf_counter)."""
    return {
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "python": platform.python_version(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "seconds": round(time.perf_counter() - start, 1),
    } | extra


def write_report(report: dict, out: Path) -> None:
    """Write ``report`` as indented JSON to ``out`` and print it."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))
