"""Every script in scripts/ starts as its docs name it: ``python scripts/NAME.py`` from the project's root, with
nothing on PYTHONPATH (``--help``: the imports and the flags).

One interpreter runs them all in turn, since each start-up is 6 to 8 s of torch and open_clip imports (17 scripts:
111 s of the suite when each had its own). Before each script ``sys.path`` is what ``python scripts/NAME.py`` sets
(the script's folder first, not the root) and the project's own modules are unloaded, so a script that cannot find
``explorer`` by itself fails here as it would alone."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted(p for p in (ROOT / "scripts").glob("*.py") if "__main__" in p.read_text())
RUNNER = r"""
import contextlib, io, json, runpy, sys, traceback
from pathlib import Path

root, scripts, first = Path(sys.argv[1]), sys.argv[2:], list(sys.path[1:])
ours = [root / "explorer", root / "scripts"]
found = {}
for path in scripts:
    for name, module in list(sys.modules.items()):  # the project's own modules: each script imports them anew
        if any(Path(getattr(module, "__file__", None) or "/").is_relative_to(p) for p in ours):
            del sys.modules[name]
    sys.path[:] = [str(Path(path).parent), *first]
    sys.argv = [path, "--help"]
    out, err, code = io.StringIO(), io.StringIO(), None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            runpy.run_path(path, run_name="__main__")
        except SystemExit as stop:
            code = stop.code
        except BaseException:
            err.write(traceback.format_exc())
            code = "raised"
    found[Path(path).name] = {"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()}
print(json.dumps(found))
"""


def test_every_script_runs_from_the_root_as_documented():
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", RUNNER, str(ROOT), *(f"scripts/{p.name}" for p in SCRIPTS)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout)
    assert sorted(found) == [p.name for p in SCRIPTS] and len(SCRIPTS) >= 15
    failed = {name: r["stderr"][-1500:] for name, r in found.items()
              if r["code"] not in (0, None) or not r["stdout"].startswith("usage:")}
    assert failed == {}
