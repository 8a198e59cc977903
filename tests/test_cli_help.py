"""The command line answers ``--help`` without loading a model library: asking how to call it takes under a second
(it took 8.5 s here while the CLI imported open_clip, torch and torch._dynamo to build its parser)."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("torch", "open_clip", "torchvision", "gradio", "spacy")
PROBE = """
import contextlib, io, json, sys
from explorer.cli import main
heavy, helps = set(sys.argv[1:]), {}
verbs = ("train-world", "train-align", "model-card", "eval", "pointing", "interactions", "bench", "binding",
         "recognition", "binding-sweep", "make-examples", "app")
for argv in (["--help"], *([verb, "--help"] for verb in verbs)):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        main(argv)
    helps[" ".join(argv)] = out.getvalue()
print(json.dumps({"helps": helps, "loaded": sorted(m for m in sys.modules if m.split(".")[0] in heavy)}))
"""


def test_help_of_every_kind_loads_no_model_library():
    done = subprocess.run([sys.executable, "-c", PROBE, *HEAVY], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout)
    assert found["loaded"] == []
    helps = found["helps"]
    assert all(text.startswith("usage: ") for text in helps.values()), helps
    assert "--benchmark" in helps["eval --help"] and "--port" in helps["app --help"] and "--null-draws" in helps[
        "binding --help"]


def test_every_option_says_what_it_does():
    """Each verb's options all have a help text, and the ones once cut to fit say why again."""
    import argparse

    from explorer.cli import build_parser
    from explorer.core.settings import Settings

    sub = next(a for a in build_parser(Settings())._actions if isinstance(a, argparse._SubParsersAction))
    for verb, parser in sub.choices.items():
        if verb != "app":  # its flags are the page's (explorer/page.py)
            assert parser.description, verb
            assert all(a.help for a in parser._actions), verb
    helps = {verb: {a.dest: " ".join(a.help.split()) for a in parser._actions} for verb, parser in sub.choices.items()}
    assert "reproduces the numbers in docs/" in helps["eval"]["precision"]
    assert "times what the page runs" in helps["bench"]["precision"]
    assert "without measuring again" in helps["model-card"]["from_record"]
    assert "Worth 2 or more on a GPU" in helps["train-world"]["workers"]
    assert "13x slower" in helps["binding-sweep"]["precision"]
