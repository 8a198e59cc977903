"""The training configs (``explorer/training/config.py``) are the one source: the CLI's flags, the cards' commands and
the sweep's recipe names."""

import json
import re
from dataclasses import asdict, fields
from pathlib import Path

import pytest

from explorer.cli import build_parser
from explorer.models import checkpoints
from explorer.training.card import align_command, train_command
from explorer.training.config import AlignTrainConfig, TrainConfig, flag, from_args, options, recipe_fields, value_type

ROOT = Path(__file__).resolve().parents[2]  # the project root: the cards name paths from it
COMMANDS = {TrainConfig: "train-world", AlignTrainConfig: "train-align"}


def subparser(command: str):
    action = next(a for a in build_parser()._subparsers._group_actions if command in a.choices)
    return action.choices[command]


@pytest.mark.parametrize("cls", COMMANDS)
def test_every_option_field_is_a_flag_with_its_default_and_help(cls):
    parser = subparser(COMMANDS[cls])
    by_dest = {a.dest: a for a in parser._actions}
    for f in options(cls):
        action = by_dest[f.name]
        assert action.option_strings == [flag(f)] and action.default == f.default
        assert f.metadata["help"] in action.help
    assert from_args(cls, build_parser().parse_args([COMMANDS[cls]])) == cls()
    assert {f.name for f in fields(cls)} - {f.name for f in options(cls)} <= {
        "model", "warmup", "weight_decay", "threads", "checkpoint_every", "lr", "finetune_lr", "coverage"}


def test_an_align_cards_command_reproduces_its_config():
    cfg = AlignTrainConfig(variant="global", seed=4, steps=30, batch_items=8, micro_items=4, warmup=3, threads=1)
    argv = align_command(asdict(cfg)).split()[3:]
    assert from_args(AlignTrainConfig, build_parser().parse_args(argv)) == cfg
    assert align_command(asdict(AlignTrainConfig())) == (
        "python -m explorer train-align --variant local --seed 0 --steps 1200 --batch-items 16")


@pytest.mark.parametrize("name", sorted(checkpoints.REGISTRY))
def test_each_shipped_card_prints_the_command_its_recorded_config_gives(name, monkeypatch):
    monkeypatch.chdir(ROOT)  # the cards name paths from the project's root
    entry = checkpoints.get(name)
    record = entry.record
    printed = re.search(r"Made by `([^`]*)`", entry.card.read_text())[1]
    if entry.kind == checkpoints.ENCODER:
        for path in (entry.path, entry.path.relative_to(ROOT)):  # model-card passes the absolute path
            assert train_command(entry.config, path, record.get("device")) == printed
    else:
        assert align_command(entry.config) == printed


def test_each_recipe_letter_is_one_field_a_recipe_name_can_spell():
    """A sweep's recipe names (``k16-v0.5-s3``) spell numbers after one letter per field: two fields sharing a letter
    would lose one of them, and a field that is not a number could not be spelled."""
    marked = [f for f in options(TrainConfig) if f.metadata["recipe"]]
    letters = recipe_fields()
    assert len(letters) == len(marked) and all(re.fullmatch("[a-z]", letter) for letter in letters)
    assert {"seed", "varied_renders", "extra_concepts", "benchmark_share"} <= set(letters.values())
    assert all(value_type(TrainConfig, name) in (int, float) for name in letters.values())


@pytest.mark.parametrize("card", sorted((ROOT / "docs" / "results" / "recognition").glob("*.md")), ids=lambda p: p.stem)
def test_the_recorded_recipes_cards_print_the_command_their_configs_give(card, monkeypatch):
    monkeypatch.chdir(ROOT)
    record = json.loads(card.with_suffix(".json").read_text())
    printed = re.search(r"Made by `([^`]*)`", card.read_text())[1]
    out = re.search(r"--out (\S+)", printed)
    checkpoint = Path(out[1]) if out else checkpoints.EMBEDDED.path
    assert train_command(record["config"], checkpoint, record.get("device")) == printed
