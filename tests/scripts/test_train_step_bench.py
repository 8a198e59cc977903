"""scripts/train_step_bench.py: one side-by-side run reports every training-step variant against fp32."""

import json
import runpy
from pathlib import Path

import pytest

from explorer.models import tower

SCRIPT = Path(__file__).parents[2] / "scripts" / "train_step_bench.py"


def test_the_step_bench_times_every_variant_against_fp32(tmp_path):
    bench = runpy.run_path(str(SCRIPT), run_name="train_step_bench")
    out = tmp_path / "bench.json"
    report = bench["main"](["--repeat", "1", "--batch-size", "8", "--threads", "1", "--json", str(out)])
    steps, speed_ups, losses = report["step_s"], report["speed_up_over_fp32"], report["first_step_loss"]
    assert set(steps) == set(bench["VARIANTS"]) == set(speed_ups) == set(losses)
    for name, seconds in steps.items():  # each ratio is fp32's step time over the variant's, as printed
        assert speed_ups[name] == pytest.approx(steps["fp32"] / seconds, rel=0.05, abs=0.01)
    for name, loss in losses.items():  # a bf16 step trains the same model on the same batch as fp32's
        assert loss == pytest.approx(losses["fp32"], rel=0.02), name
    # the record names the CPU kind its figures belong to: bf16 runs natively on some CPUs and is emulated on others
    assert ("no native bf16" in report["machine"]) != tower.cpu_has_native_bf16()
    assert json.loads(out.read_text()) == report
