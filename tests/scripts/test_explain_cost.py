"""scripts/explain_cost.py: what a map costs against a forward pass, recorded with its machine, and the doc's table
is the record's."""

import json
import runpy
from pathlib import Path

import pytest

from explorer import speed_report

ROOT = Path(__file__).parents[2]


@pytest.fixture(scope="module")
def script():
    return runpy.run_path(str(ROOT / "scripts" / "explain_cost.py"), run_name="explain_cost")


def test_a_run_times_each_explainer_against_the_forward_pass(script, tmp_path):
    out = tmp_path / "cost.json"
    report = script["main"](["--models", "embedded", "--json", str(out)])
    f = report["figures"]
    for name in script["COLUMNS"]:  # each ratio is the explainer's milliseconds over the forward pass's
        ratio = f[f"explain.{name}_ms.embedded"] / f["explain.forward_ms.embedded"]
        assert f[f"explain.{name}_over_forward.embedded"] == pytest.approx(ratio, rel=0.02, abs=0.01)
    assert report["machine"] == speed_report.machine()  # the CPU kind (and GPU) its figures belong to
    assert json.loads(out.read_text()) == report
    assert script["markdown"](report).count("\n") == 3  # the header, its rule and the one model's row


def test_the_docs_table_is_the_committed_record(script):
    record = json.loads((ROOT / "docs/results/explanations/cost.json").read_text())
    assert record["command"].startswith("python scripts/explain_cost.py")
    assert record["command"].endswith(" --json docs/results/explanations/cost.json")
    assert {f"explain.legrad_ms.{tag}" for tag in script["MODELS"]} <= set(record["figures"])  # LeGrad beside the rest
    assert script["markdown"](record) in (ROOT / "docs" / "explanations.md").read_text()
