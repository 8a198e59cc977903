"""``eval --models`` and ``--compare`` check every model before scoring the first item, each failure the model's own
sentence; a model that fails only when loaded for real leaves the earlier models' outcomes on disk for a rerun; flags
that would be ignored are refused."""

import json
import logging
from dataclasses import replace

import pytest
import torch

from explorer.cli import main
from explorer.core import settings
from explorer.eval import accuracy

WORLD = ["--benchmark", "world-vismin", "--split", "id", "--limit", "2"]


@pytest.fixture
def nothing_scored(monkeypatch):
    """Scoring an item fails the test: a refusal must come first."""
    def scored(*args, **kwargs):
        raise AssertionError("an item was scored before every model was checked")
    monkeypatch.setattr(accuracy, "score_chunk", scored)


@pytest.fixture
def empty_zoo(monkeypatch, tmp_path):
    monkeypatch.setattr(settings, "_current", replace(settings.current(), zoo_dir=str(tmp_path / "zoo")))


def refused(args, caplog) -> str:
    """The one sentence a refused run logs (exit status 2)."""
    caplog.clear()
    with caplog.at_level(logging.ERROR, logger="explorer"):
        assert main(args) == 2
    return " ".join(r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("models, said", [
    ("world-clip,{tmp}/missing.pth", "No checkpoint file missing.pth: nothing at the path given."),
    ("world-clip,NegCLIP", "NegCLIP cannot load here: no negclip.pth in the zoo folder (the setting zoo_dir, "
                           "EXPLORER_ZOO_DIR): download negclip.pth"),
])
def test_a_model_that_cannot_load_stops_the_run_before_any_scoring(tmp_path, caplog, nothing_scored, empty_zoo,
                                                                   models, said):
    out = tmp_path / "board.json"
    message = refused(["eval", "--models", models.format(tmp=tmp_path), *WORLD, "--json", str(out)], caplog)
    assert said in message and "Unknown model" not in message and str(tmp_path) not in message, message
    assert not out.exists() and not (tmp_path / "board.json.shards").exists()


def test_compare_checks_its_model_before_scoring(tmp_path, caplog, nothing_scored, empty_zoo):
    message = refused(["eval", "--compare", "NegCLIP", *WORLD], caplog)
    assert message.startswith("NegCLIP cannot load here: no negclip.pth in the zoo folder"), message
    cut = tmp_path / "cut.pth"
    cut.write_bytes(b"PK\x03\x04" + bytes(200))  # the start of torch's zip format, then nothing
    message = refused(["eval", "--compare", str(cut), *WORLD], caplog)
    assert "cut.pth" in message and "cut short or damaged" in message and str(tmp_path) not in message, message


def test_a_model_that_fails_late_keeps_the_first_model_s_outcomes_for_the_rerun(tmp_path, caplog):
    """A weights file that opens but does not fit fails only when loaded for real, after the first model is scored:
    its outcomes stay in the shards, and the rerun reads every one back."""
    from safetensors.torch import save_file

    foreign = tmp_path / "foreign.safetensors"
    save_file({"another.model": torch.zeros(3)}, str(foreign))
    out = tmp_path / "board.json"
    message = refused(["eval", "--models", f"world-clip,{foreign}", *WORLD, "--json", str(out)], caplog)
    assert "foreign.safetensors" in message and "do not fit this model" in message, message
    kept = (tmp_path / "board.json.shards" / "model-0").glob("rank-*.jsonl")
    lines = [json.loads(line) for f in kept for line in f.read_text().splitlines()[1:]]
    assert len(lines) == 8  # world-vismin's four categories, two items each
    assert main(["eval", "--models", "world-clip,world-clip-finetune", *WORLD, "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["resumed"]["world-clip"] == {"read back": 8}
    assert report["resumed"]["world-clip-finetune"]["read back"] == 0


@pytest.mark.parametrize("args, said", [
    (["--check-reported"], "--check-reported goes with --models"),
    (["--benchmarks", "world,world-vismin"], "--benchmarks goes with --models"),
    (["--models", ""], "--models takes two models or more, each named, got ''"),
    (["--models", "world-clip,"], "--models takes two models or more, each named"),
    (["--models", "world-clip,world-clip"], "--models names world-clip more than once"),
])
def test_flags_that_would_be_ignored_are_refused(args, said, nothing_scored):
    with pytest.raises(SystemExit, match=said):
        main(["eval", *args, *WORLD])
