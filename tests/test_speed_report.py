"""The speed reports' keeping: the machine line tells machines of one name apart; PERFORMANCE.md's table puts devices
side by side and keeps the hand-written profile below it."""

import torch

from explorer import speed_report


def test_performance_markdown_puts_devices_side_by_side_and_keeps_the_profile(tmp_path):
    cpu = {"model": "m", "device": "cpu", "machine": "2 cores", "figures": {"a": 1, "b": 2}}
    gpu = {"model": "m", "device": "cuda", "machine": "an H200", "figures": {"a": 0.5, "c": 3}}
    path = tmp_path / "PERFORMANCE.md"
    path.write_text(f"old table\n{speed_report.PROFILE_HEADING}\nprofile rows\n")
    speed_report.write_performance_markdown(path, [cpu, gpu])
    text = path.read_text()
    assert "| figure | cpu | cuda |" in text and "| `a` | 1 | 0.5 |" in text and "| `c` |  | 3 |" in text
    assert "an H200" in text and "old table" not in text and text.endswith(f"{speed_report.PROFILE_HEADING}\nprofile rows\n")
    speed_report.write_performance_markdown(path, [cpu])
    assert "No GPU column" in path.read_text()


def test_the_machine_line_names_the_cpus_vector_kernels_and_bf16(monkeypatch):
    """Two machines both named "AMD EPYC" ran the page analysis 1.75x apart (p50 150.8 and 264.5 ms): the line
    tells them apart."""
    from explorer.models import tower

    for native, said in ((True, "native bf16"), (False, "no native bf16")):
        monkeypatch.setattr(tower, "cpu_has_native_bf16", lambda native=native: native)
        line = speed_report.machine()
        assert f"({torch.backends.cpu.get_cpu_capability()} kernels, {said})" in line and "cores" in line
