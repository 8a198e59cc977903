"""Command line: ``python -m explorer COMMAND``, or ``binding-explorer COMMAND`` once installed (``pip install .``);
each command imports only what it needs, one module each in ``explorer/commands/``. ``app`` serves the page
(``explorer/page.py``, as ``python app.py`` does)."""

from __future__ import annotations

import argparse
import logging
import os
import sys

from explorer.commands import bench, binding, binding_sweep
from explorer.commands import eval as eval_command
from explorer.commands import (
    heads, interactions, make_examples, model_card, pointing, recognition, train_align, train_world,
)
from explorer.commands.common import prog
from explorer.core.settings import Settings, add_setting_flags, current, use

DESCRIPTION = ("The binding explorer's command line: python -m explorer COMMAND, or binding-explorer COMMAND once "
               "installed (pip install .). COMMAND --help says what a command does and lists its options; each command "
               "imports only what it needs. app serves the page, as python app.py does.")
# The verbs in the order --help lists them: each module's add_parser(sub, settings) adds its subparser, run(args) runs
# it (explorer/commands/__init__.py). "app" is not among them: main() hands it to the page.
COMMANDS = (train_world, train_align, model_card, eval_command, pointing, interactions, heads, bench, binding,
            recognition, binding_sweep, make_examples)


def build_parser(settings: Settings | None = None) -> argparse.ArgumentParser:
    """The command line, its settings' flags defaulting to ``settings`` (None: this process's)."""
    settings = settings or current()
    p = argparse.ArgumentParser(prog=prog(), description=DESCRIPTION)
    add_setting_flags(p, settings, ["log_level"])
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(sub, settings)
    # Listed for --help only: main() hands everything after "app" to the page's own flags (app --help lists them).
    sub.add_parser("app", help="serve the page, as python app.py does (its flags: app --help)", add_help=False)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["app"]:
        from explorer.page import main as serve_page

        return serve_page(argv[1:], prog=f"{prog()} app")
    given = Settings.from_env(os.environ)  # read once, here: the flags override it and it is passed down
    args = build_parser(given).parse_args(argv)
    args.argv = argv  # the command as given, for the reports that record it
    args.settings = use(given.with_flags(args, ["log_level", *getattr(args, "settings_flags", ())]))
    logging.basicConfig(level=args.settings.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    from explorer.eval.dataset_loaders import DatasetError
    from explorer.models.model_errors import ModelUnavailable

    try:
        return args.func(args)
    except (DatasetError, ModelUnavailable) as exc:
        logging.getLogger("explorer").error("%s", exc)
        return 2
