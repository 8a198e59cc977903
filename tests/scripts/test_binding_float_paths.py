"""scripts/binding_float_paths.py: each grid's float paths compared reading by reading from the records there, a
reading whose verdict differs between paths marked, and a grid left out where only its default record is there."""

import json
import runpy
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "binding_float_paths.py"


@pytest.fixture(scope="module")
def script() -> dict:
    return runpy.run_path(str(SCRIPT), run_name="binding_float_paths")


def _record(command: str, readings: dict[str, str]) -> dict:
    return {"command": command, "seconds": 1.0,
            "figures": {n: {"reading": r, "null": {"p_adjusted": 0.03}} for n, r in readings.items()}}


def test_a_grid_compares_the_paths_whose_records_are_there_and_marks_a_changed_verdict(script, tmp_path):
    write = lambda name, record: (tmp_path / name).write_text(json.dumps(record))  # noqa: E731
    write("binding-small.json", _record("python -m explorer binding", {"x": "above chance", "y": "above chance"}))
    assert script["grid"]("binding-small", tmp_path) is None  # the default path alone: nothing to compare
    write("binding-small-bf16.json", _record("python -m explorer binding --precision bf16",
                                             {"x": "above chance", "y": "at chance"}))
    found = script["grid"]("binding-small", tmp_path)
    assert list(found["paths"]) == ["default: fp32, AMX / AVX512", "bf16, AMX"]  # the AVX2 record is not there
    assert found["paths"]["bf16, AMX"]["precision"] == "bf16"
    assert found["paths"]["bf16, AMX"]["record"] == "docs/results/binding-small-bf16.json"
    assert found["changed"] == ["y"] and found["verdicts"]["x"]["same"]
    assert found["verdicts"]["y"]["paths"]["bf16, AMX"] == {"reading": "at chance", "p_adjusted": 0.03}


def test_the_avx2_paths_environment_puts_torch_on_avx2(script):
    """The environment the AVX2 path is run under takes effect: torch reports AVX2 there (on a CPU with AVX512 it
    reports AVX512 without it, and a fp32 matmul differs bitwise between the two)."""
    assert script["kernels"](script["AVX2"])["capability"] == "AVX2"
