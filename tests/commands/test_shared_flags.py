"""The flags several commands take are declared once (``explorer/commands/common.py``'s ``FLAGS``): no command module
declares one of another's flags again, and each command that takes a shared flag takes it as declared."""

import argparse
import ast
from pathlib import Path

from explorer.cli import build_parser
from explorer.commands.common import FLAGS
from explorer.core.settings import MODEL_FLAGS, Settings

COMMANDS = Path(__file__).parents[2] / "explorer" / "commands"
# The same name for two different things: bench's --runs counts timed analyses, binding-sweep's is a folder;
# binding-sweep's --steps are optimizer steps, interactions' the integrated Jacobians' interpolation steps.
NAMESAKES = {"--runs", "--steps"}
# Model flags' names that a command takes with a meaning of its own: model-card's --checkpoint is the weights to card,
# binding-sweep's --precision the towers' in training (train-world's, from its config).
OWN_MEANING = {("--checkpoint", "model_card.py"), ("--precision", "binding_sweep.py")}


def declared_by_hand() -> dict[str, set[str]]:
    """Each flag a command module passes to ``add_argument`` itself -> the modules that do."""
    out: dict[str, set[str]] = {}
    for path in COMMANDS.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument"
                    and node.args and isinstance(node.args[0], ast.Constant) and str(node.args[0].value)[:2] == "--"):
                out.setdefault(node.args[0].value, set()).add(path.name)
    return out


def commands() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser(Settings())._actions if isinstance(a, argparse._SubParsersAction))
    return {verb: parser for verb, parser in sub.choices.items() if verb != "app"}


def test_no_command_declares_a_flag_another_declares():
    by_hand = declared_by_hand()
    twice = {flag: sorted(modules) for flag, modules in by_hand.items() if len(modules) > 1 and flag not in NAMESAKES}
    assert twice == {}
    assert not by_hand.keys() & FLAGS.keys()  # a shared flag is added through add_flag, never by hand
    model_flags = {"--" + name.replace("_", "-") for name in MODEL_FLAGS}
    again = {(flag, module) for flag in by_hand.keys() & model_flags for module in by_hand[flag]}
    assert again == OWN_MEANING  # every other command takes the model flags from the settings (model_args.py)


def test_each_shared_flag_is_taken_by_several_commands_as_declared():
    parsers = commands()
    for flag, declared in FLAGS.items():
        taking = {verb: p._option_string_actions[flag] for verb, p in parsers.items()
                  if flag in p._option_string_actions}
        assert len(taking) >= 2, (flag, sorted(taking))
        for verb, action in taking.items():
            if flag == "--device" and verb not in ("train-world", "binding-sweep"):
                continue  # the model commands' --device is the setting's (model_args.py)
            assert action.type is declared.get("type"), (flag, verb)
            assert isinstance(action, argparse._StoreTrueAction) == (declared.get("action") == "store_true")
            assert action.metavar == declared.get("metavar") or verb == "binding-sweep", (flag, verb)


def test_a_shared_flag_parses_the_same_in_every_command_that_takes_it():
    parsers = commands()
    assert parsers["train-world"].parse_args(["--workers", "3"]).workers == 3
    assert parsers["binding-sweep"].parse_args(["--workers", "3"]).workers == 3
    assert parsers["eval"].parse_args(["--limit", "7"]).limit == 7 and parsers["eval"].parse_args([]).limit is None
    assert parsers["pointing"].parse_args(["--limit", "7"]).limit == 7
    assert parsers["recognition"].parse_args([]).limit == 500
    assert parsers["eval"].parse_args([]).split == parsers["pointing"].parse_args([]).split
    assert parsers["binding-sweep"].parse_args([]).out == "docs" and parsers["train-align"].parse_args([]).out is None
