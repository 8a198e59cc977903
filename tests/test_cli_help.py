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
for argv in (["--help"], ["eval", "--help"], ["binding", "--help"], ["app", "--help"]):
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
