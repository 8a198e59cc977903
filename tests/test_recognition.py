import json

from explorer import recognition


def test_readings_are_consistent_with_each_other(embedded):
    found = recognition.readings(embedded, limit=40, probe_limit=120)
    assert found["n"] == 40 and found["probe_n"] == 120
    assert abs(found["errors"] - (100 - found["full"]) * 40 / 100) < 1e-6
    assert 0 <= found["errors_keep_colour"] <= found["errors"]
    assert found["among_heldout"] >= found["full"]  # taking the seen captions away can only help
    for key in ("shape_only", "shape_only_grey", "probe_shape", "probe_colour"):
        assert 0 <= found[key] <= 100
    assert found["probe_colour"] >= 90  # the embedded model carries the colour of every object


def test_recognition_command_writes_its_readings(tmp_path, capsys):
    from explorer.cli import main

    path = tmp_path / "r.json"
    assert main(["recognition", "--limit", "16", "--probe-limit", "60", "--json", str(path)]) == 0
    report = json.loads(path.read_text())
    assert report["model"].startswith("world-clip") and report["readings"]["n"] == 16
    assert json.loads(capsys.readouterr().out) == report
