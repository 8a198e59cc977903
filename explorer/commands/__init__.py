"""The command line's verbs, one module each (``explorer/cli.py`` lists them and runs the chosen one).

A command's module holds ``NAME`` (the verb), ``add_parser(sub, settings)`` (adds the verb's subparser with every
option and its help, and sets ``func`` to its ``run``) and ``run(args) -> int`` (the exit code). At its top a module
imports only what building its parser needs; torch, open_clip, gradio and spaCy, and whatever loads them, are
imported inside ``run``, so that ``--help`` answers at once (``tests/test_cli_help.py``). ``model_args.py`` holds the
model flags the commands and the page share; ``common.py`` the other flags several commands take (``FLAGS``, each
declared once), how the command line was called and how a report is printed and written.
"""
