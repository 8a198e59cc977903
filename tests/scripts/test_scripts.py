"""Every script in scripts/ starts as its docs name it: ``python scripts/NAME.py`` from the project's root, with
nothing on PYTHONPATH (``--help``: the imports and the flags)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted(p for p in (ROOT / "scripts").glob("*.py") if "__main__" in p.read_text())


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_the_script_runs_from_the_root_as_documented(script):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, f"scripts/{script.name}", "--help"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "usage:" in done.stdout
