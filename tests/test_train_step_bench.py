"""scripts/train_step_bench.py: one side-by-side run reports every training-step variant against fp32."""

import json
import runpy
from pathlib import Path

SCRIPT = Path(__file__).parents[1] / "scripts" / "train_step_bench.py"


def test_the_step_bench_times_every_variant_against_fp32(tmp_path):
    bench = runpy.run_path(str(SCRIPT), run_name="train_step_bench")
    out = tmp_path / "bench.json"
    report = bench["main"](["--repeat", "1", "--batch-size", "8", "--threads", "1", "--json", str(out)])
    assert set(report["step_s"]) == set(bench["VARIANTS"]) == set(report["speed_up_over_fp32"])
    assert report["speed_up_over_fp32"]["fp32"] == 1.0 and min(report["step_s"].values()) > 0
    assert report["draw_batch_s"] > 0 and json.loads(out.read_text()) == report
