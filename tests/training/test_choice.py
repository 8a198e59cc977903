"""Choosing a model on the validation split: the rule, its refusals, and the card's words for it."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.training.choice import candidates, choice_record, choice_section, choose

ROOT = Path(__file__).resolve().parents[2]


def report(top1: float, low: float, high: float, split: str = "val-heldout") -> dict:
    cell = {"single": {"top1": top1, "n": 500, "ci": {"top1": [low, high]}}}
    return {"benchmark": "world-single", "results": {"global": {split: cell, "heldout": cell}}}


def test_the_highest_val_score_wins_without_an_incumbent():
    runs = candidates({"a": report(92.8, 90.6, 94.8), "b": report(95.8, 94.0, 97.4), "c": report(94.8, 93.0, 96.8)})
    assert [r["score"] for r in runs] == [92.8, 95.8, 94.8]
    assert choose(runs) == "b"


def test_an_incumbent_stays_unless_another_interval_lies_wholly_above_its_score():
    runs = candidates({"old": report(94.0, 92.0, 96.0), "close": report(95.0, 93.5, 96.5)})
    assert choose(runs) == "close" and choose(runs, incumbent="old") == "old"  # 93.5 is not above 94.0
    clear = candidates({"old": report(90.0, 88.0, 92.0), "new": report(96.0, 94.5, 97.5)})
    assert choose(clear, incumbent="old") == "new"
    with pytest.raises(ValueError, match="incumbent 'gone'"):
        choose(runs, incumbent="gone")


def test_a_report_without_the_val_split_or_of_another_benchmark_is_refused():
    with pytest.raises(ValueError, match="run eval with --split val-heldout"):
        candidates({"a": report(95.0, 94.0, 96.0, split="heldout")})
    with pytest.raises(ValueError, match="world-single report is needed"):
        candidates({"a": {"benchmark": "world", "results": {}}})


def test_the_card_section_names_the_rule_the_runs_and_their_sources():
    runs = candidates({"seed0": report(92.8, 90.6, 94.8), "seed1": report(95.8, 94.0, 97.4)})
    record = {"config": {"seed": 1}, "chosen": choice_record(runs, {"seed0": "s0.json", "seed1": "s1.json"}, "seed1",
                                                            "`--seed`", note="The recipe was read on test.")}
    text = choice_section(record)
    assert "| seed1 (this model) | 95.8 [94.0, 97.4] |" in text and "| seed0 | 92.8 [90.6, 94.8] |" in text
    assert "`s0.json`" in text and "stays unless" in text and "The recipe was read on test." in text
    assert "Not chosen among runs" in choice_section({"config": {"seed": 0}})


def test_over_several_splits_a_run_scores_its_lowest_and_the_card_says_where():
    def several(scores: dict[str, float]) -> dict:
        cells = {s: {"single": {"top1": v, "n": 500, "ci": {"top1": [v - 2, v + 1]}}} for s, v in scores.items()}
        return {"benchmark": "world-single", "results": {"global": cells}}

    splits = ["val-heldout", "val-style", "val-drawn-dark"]
    reports = {"v0.5": several({"val-heldout": 97.0, "val-style": 93.0, "val-drawn-dark": 99.0}),
               "v0.8": several({"val-heldout": 95.5, "val-style": 96.0, "val-drawn-dark": 98.0})}
    runs = candidates(reports, splits)
    assert [(r["score"], r["split"]) for r in runs] == [(93.0, "val-style"), (95.5, "val-heldout")]
    assert choose(runs) == "v0.8"  # the better worst case, though its held-out score is lower
    record = {"config": {"seed": 1}, "chosen": choice_record(runs, {"v0.5": "a.json", "v0.8": "b.json"}, None,
                                                            "`--varied-renders`", split=splits)}
    text = choice_section(record)
    assert "| v0.8 (this model) | 95.5 [93.5, 96.5] (val-heldout) |" in text and "lowest top-1 (its split)" in text
    assert "`val-style`" in text and "highest lowest" in text
    with pytest.raises(ValueError, match="no 'val-drawn-white'"):
        candidates(reports, [*splits, "val-drawn-white"])


def test_the_script_writes_the_choice_only_into_the_picked_runs_record(tmp_path):
    paths = {}
    for name, figures in {"seed0": (92.8, 90.6, 94.8), "seed1": (95.8, 94.0, 97.4)}.items():
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_text(json.dumps(report(*figures)))
    record = tmp_path / "model.json"
    record.write_text(json.dumps({"config": {"seed": 0}}))
    argv = [sys.executable, "scripts/choose_on_val.py", *(f"{n}={p}" for n, p in paths.items()), "--record", str(record)]
    refused = subprocess.run([*argv, "--as", "seed0"], cwd=ROOT, capture_output=True, text=True)
    assert refused.returncode != 0 and "the rule chose seed1, not seed0" in refused.stderr
    assert "chosen" not in json.loads(record.read_text())  # nothing written
    done = subprocess.run([*argv, "--as", "seed1"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(record.read_text())["chosen"]["chosen"] == "seed1"


def test_the_shipped_models_choice_is_what_its_reports_give():
    """The embedded card's table of runs is read from the reports it names, and the rule (the model shipped before,
    ``v0``, stays unless a run's whole interval clears it) picks the shipped run: the last stage of its lineage."""
    from explorer.models.checkpoints import EMBEDDED_CHECKPOINT

    record = json.loads(EMBEDDED_CHECKPOINT.with_suffix(".json").read_text())
    chosen = record["chosen"]
    reports = {name: json.loads((ROOT / path).read_text()) for name, path in chosen["reports"].items()}
    assert candidates(reports, chosen["split"]) == chosen["runs"]
    assert choose(chosen["runs"], incumbent="v0") == chosen["chosen"] != "v0"
    before = record["lineage"][-1]["run"]  # the record is the chosen run's: it started from the stage before it
    assert chosen["chosen"].startswith(before + "-") and record["config"]["init"].endswith(f"world-clip-{before}.safetensors")
    assert choice_section(record) in EMBEDDED_CHECKPOINT.with_suffix(".md").read_text()


def test_the_powerclip_twins_lambda_is_what_the_val_reports_give():
    """The lambda docs/powerclip-world.md reports as chosen is the rule's pick on the twins' val reports, and the
    chosen twin's training record is the run at that lambda."""
    record = json.loads((ROOT / "docs/results/powerclip/train-twin-l0.1.json").read_text())
    chosen = record["chosen"]
    reports = {name: json.loads((ROOT / path).read_text()) for name, path in chosen["reports"].items()}
    assert candidates(reports, chosen["split"]) == chosen["runs"]
    assert choose(chosen["runs"]) == chosen["chosen"] == f"l{record['config']['powerclip_lambda']}"
    assert f"**Lambda chosen on `val`: {record['config']['powerclip_lambda']}.**" in \
        (ROOT / "docs/powerclip-world.md").read_text()


@pytest.mark.parametrize("name", ["world-clip-tflocal", "world-clip-tfglobal", "world-clip-finetune"])
def test_a_shipped_align_card_is_its_record_rendered(tmp_path, name):
    """``model-card --from-record`` rewrites a card from its record alone, and the shipped card is that rendering."""
    from explorer.models.checkpoints import CHECKPOINT_DIR
    from explorer.training.card import write_align_card

    (tmp_path / f"{name}.safetensors").symlink_to(CHECKPOINT_DIR / f"{name}.safetensors")
    (tmp_path / f"{name}.json").write_text((CHECKPOINT_DIR / f"{name}.json").read_text())
    card = write_align_card(tmp_path / f"{name}.safetensors", remeasure=False)
    assert card.read_text() == (CHECKPOINT_DIR / f"{name}.md").read_text()
    (tmp_path / f"{name}.json").write_text(json.dumps({"config": {"variant": "local"}}))
    with pytest.raises(ValueError, match="holds no measured figures"):
        write_align_card(tmp_path / f"{name}.safetensors", remeasure=False)
