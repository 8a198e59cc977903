"""The GPU recipe sweep (scripts/recipe_sweep.py): its recipe names, and one whole tiny run on the CPU."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[2] / "scripts" / "recipe_sweep.py"


def load_script():
    spec = importlib.util.spec_from_file_location("recipe_sweep", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_recipe_names_spell_the_training_config():
    sweep = load_script()
    cfg = sweep.recipe_config("k16-b0.35-g0.25-s1", steps=100, batch_size=32)
    assert (cfg.extra_concepts, cfg.benchmark_share, cfg.grey_images, cfg.seed) == (16, 0.35, 0.25, 1)
    assert (cfg.steps, cfg.batch_size, cfg.unnamed_colours) == (100, 32, 0.0)
    with pytest.raises(ValueError, match="bad recipe part"):
        sweep.recipe_config("k16-x3", steps=1, batch_size=1)


@pytest.mark.slow
def test_a_tiny_sweep_trains_and_reads_each_recipe(tmp_path):
    cmd = [sys.executable, str(SCRIPT), "--out", str(tmp_path / "out"), "--weights-dir", str(tmp_path / "w"),
           "--steps", "2", "--batch-size", "8", "--device", "cpu", "--limit", "16", "k2-b0.5"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(SCRIPT.parents[1]), "TQDM_DISABLE": "1"})
    assert done.returncode == 0, done.stderr[-2000:]
    rows = json.loads((tmp_path / "out" / "sweep.json").read_text())
    assert [r["recipe"] for r in rows] == ["k2-b0.5"] and rows[0]["config"]["benchmark_share"] == 0.5
    assert set(rows[0]["top1"]) == {"id", "heldout", "shift"} and rows[0]["recognition"]["n"] == 16
    assert (tmp_path / "w" / "k2-b0.5.safetensors").exists() and "k2-b0.5" in done.stdout

