"""Installable like any Python tool: ``pip install .`` into a fresh venv gives a working ``binding-explorer``.

pip builds the project's wheel from a copy of this checkout and installs it into a new venv; the venv's
``binding-explorer eval --benchmark world --limit 4`` then scores the world benchmark with the embedded model from a
folder outside the checkout, so everything it reads (code, the shipped checkpoints, the open_clip config, the
example scenes) must come from the installed package. CI runs this in a clean clone (``.ci/run`` runs ``./run
test``), so the wheel holds what a fresh checkout holds, not files left behind in a working tree.

No network: the wheel is built with this environment's setuptools (``--no-build-isolation --no-index``), and the
dependencies are the ones already installed here, which a ``.pth`` file makes visible to the new venv, as a local
wheel cache would provide them; ``pip check`` in the venv then confirms that they satisfy ``pyproject.toml``'s list.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
# The shipped data the repository keeps at its root, and where the installed package holds each (pyproject.toml).
SHIPPED = {"checkpoints": ROOT / "checkpoints", "examples": ROOT / "assets" / "examples"}


def _requirements_txt() -> set[str]:
    lines = (line.split("#", 1)[0].strip() for line in (ROOT / "requirements.txt").read_text().splitlines())
    return {str(Requirement(line)) for line in lines if line}


def _pyproject() -> dict:
    tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml takes Python 3.11's tomllib")
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_pyproject_declares_what_requirements_txt_installs():
    """One list in two files: ``./run`` installs requirements.txt, ``pip install .`` pyproject's dependencies (and
    ``.[test]`` the test suite's), and the two name the same requirements."""
    project = _pyproject()["project"]
    tool = {str(Requirement(r)) for r in project["dependencies"]}
    tests = {str(Requirement(r)) for r in project["optional-dependencies"]["test"]}
    assert not tool & tests
    assert tool | tests == _requirements_txt()
    assert project["scripts"] == {"binding-explorer": "explorer.cli:main"}


def test_pyproject_lists_every_package_and_maps_the_shipped_data_from_the_root():
    """``packages`` is a list (the shipped data's packages lie outside explorer/, where no discovery finds them): a
    subpackage added to explorer/ must be added there too, or the installed tool would lack it."""
    setuptools = _pyproject()["tool"]["setuptools"]
    code = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "explorer").rglob("__init__.py")}
    assert code <= set(setuptools["packages"])
    mapped = {f"explorer.shipped.{name}": folder.relative_to(ROOT).as_posix() for name, folder in SHIPPED.items()}
    assert setuptools["package-dir"] == mapped and set(mapped) <= set(setuptools["packages"])


def _run(cmd: list, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env |= {"TQDM_DISABLE": "1", "PIP_NO_INDEX": "1", "PIP_NO_CACHE_DIR": "1", "PYTHONNOUSERSITE": "1"}
    done = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{cmd} exited {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> tuple[Path, Path]:
    """A fresh venv with the project installed from a copy of the checkout's package, and its site-packages."""
    tmp = tmp_path_factory.mktemp("install")
    src = tmp / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "build", "*.egg-info")
    for folder in (ROOT / "explorer", *SHIPPED.values()):
        shutil.copytree(folder, src / folder.relative_to(ROOT), ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)

    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv], cwd=tmp)
    python = venv / "bin" / "python"
    site = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp).stdout.strip())
    ours = dict.fromkeys(sysconfig.get_paths()[k] for k in ("purelib", "platlib"))  # this environment's packages
    (site / "_binding_explorer_deps.pth").write_text(
        "".join(f"import site; site.addsitedir({p!r})\n" for p in ours))  # after the venv's own site-packages
    _run([python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", src], cwd=tmp)
    return venv, site.resolve()


@pytest.mark.slow
def test_the_installed_command_evaluates_the_world_outside_the_checkout(venv, tmp_path):
    venv, site = venv
    done = _run([venv / "bin" / "binding-explorer", "eval", "--benchmark", "world", "--limit", "4"], cwd=tmp_path)
    report = json.loads(done.stdout)
    assert report["benchmark"] == "world" and report["model"] == "world-clip (embedded)" and report["limit"] == 4
    scores = report["results"]["global"]
    assert set(scores) == {"id", "heldout", "shift", "style"}
    assert all(per_kind["all"]["n"] == 16 and 0 <= per_kind["all"]["group"] <= 100 for per_kind in scores.values())
    weights = site / "explorer" / "shipped" / "checkpoints" / "world-clip.safetensors"
    assert f"weights from: {weights}" in done.stderr  # the installed package's, not the checkout's
    assert list(tmp_path.iterdir()) == []  # it wrote nothing where it ran


@pytest.mark.slow
def test_the_installed_package_holds_its_data_and_its_dependencies(venv, tmp_path):
    venv, site = venv
    probe = """
import json, explorer
from explorer.models import checkpoints, model_configs
from explorer.world import examples
entries = checkpoints.REGISTRY.values()
print(json.dumps({
    "package": explorer.__file__,
    "checkpoints": all(c.path.is_file() and c.record and c.card.is_file() for c in entries),
    "examples": [str(e.path) for e in examples.examples() if e.path.parent == examples.EXAMPLES_DIR],
    "configs": sorted(p.name for p in model_configs.CONFIG_DIR.glob("*.json")),
}))
"""
    found = json.loads(_run([venv / "bin" / "python", "-c", probe], cwd=tmp_path).stdout)
    package = Path(found["package"]).resolve().parent
    assert package == site / "explorer", package  # the venv's copy: not the checkout's
    assert found["checkpoints"]
    shipped = sorted(f"{name}/{p.name}" for name, folder in SHIPPED.items() for p in folder.iterdir() if p.is_file())
    assert sorted(p.relative_to(package / "shipped").as_posix() for p in (package / "shipped").rglob("*")
                  if p.is_file()) == shipped  # every file of the root folders, in the package
    index = json.loads((SHIPPED["examples"] / "index.json").read_text())
    assert len(found["examples"]) == len(index) and all(Path(p).is_relative_to(package) for p in found["examples"])
    assert found["configs"] == sorted(p.name for p in (ROOT / "explorer" / "models" / "configs").glob("*.json"))
    assert "No broken requirements" in _run([venv / "bin" / "python", "-m", "pip", "check"], cwd=tmp_path).stdout


@pytest.mark.slow
def test_the_installed_command_has_the_app_verb(venv, tmp_path):
    venv, _ = venv
    done = _run([venv / "bin" / "binding-explorer", "app", "--help"], cwd=tmp_path)
    assert done.stdout.startswith("usage: binding-explorer app ") and "--port" in done.stdout
    assert "serve the page" in _run([venv / "bin" / "binding-explorer", "--help"], cwd=tmp_path).stdout
