"""Settings read once: one object from the environment and the flags, passed down; nothing else reads the environment,
nothing reads it at import, and the README's tables are the settings'."""

import ast
import os
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest
import torch

from explorer.core import settings
from explorer.core.cache import LRUCache
from explorer.core.settings import FIELDS, MODEL_FLAGS, Settings
from scripts.readme_settings import with_tables

ROOT = Path(__file__).resolve().parents[2]
OTHER_TOOLS = {"HF_HUB_OFFLINE", "WORLD_SIZE", "LOCAL_RANK", "GRADIO_TEMP_DIR"}  # huggingface_hub's, torchrun's and
# gradio's, read (gradio's also set) where used
SAMPLE = {bool: "1", int: "3", float: "2.5", str: "x"}


@pytest.fixture
def process_settings():
    """Whatever a test installs with ``settings.use`` is undone after it."""
    before = settings.current()
    yield
    settings.use(before)


def test_every_variable_is_read_as_its_fields_type_and_unset_ones_keep_their_defaults():
    variables = {f.metadata["env"]: f for f in fields(Settings) if f.metadata["env"]}
    assert len(variables) == len(fields(Settings)) - 1  # --share alone has none: a public link only when asked
    assert all(name.startswith("EXPLORER_") for name in variables)
    given = Settings.from_env({env: SAMPLE[settings.kind(f)] for env, f in variables.items()} | {"PATH": "/bin"})
    for env, f in variables.items():
        assert getattr(given, f.name) == settings.parse(f, SAMPLE[settings.kind(f)]), env
        value = getattr(given, f.name)  # a field of several: a tuple of its kind
        assert all(type(v) is settings.kind(f) for v in value) if settings.many(f) else type(value) is settings.kind(f)
    assert Settings.from_env({}) == Settings()
    assert Settings.from_env({"EXPLORER_COMPILE": "yes"}).compile is False  # a switch is on at 1 only, as before
    with pytest.raises(ValueError):
        Settings.from_env({"EXPLORER_PORT": "eighty"})


def test_a_variables_former_name_is_still_read_and_its_own_name_wins():
    assert Settings.from_env({"EXPLORER_VIEW_CACHE_MB": "8"}).crop_cache_mb == 8.0
    both = {"EXPLORER_VIEW_CACHE_MB": "8", "EXPLORER_CROP_CACHE_MB": "16"}
    assert Settings.from_env(both).crop_cache_mb == 16.0


def test_the_pages_flags_default_to_the_environment_and_override_it():
    from explorer.page import PAGE_FLAGS, parse_args

    env = Settings.from_env({"EXPLORER_PORT": "8000", "EXPLORER_TIME_LIMIT": "30", "EXPLORER_MODEL": "ViT-B-32",
                             "EXPLORER_COMPILE": "1"})
    args = parse_args([], settings=env)
    assert (args.port, args.time_limit, args.model, args.compile, args.precision) == (8000, 30.0, "ViT-B-32", True,
                                                                                      "native")
    flagged = env.with_flags(parse_args(["--port", "9000", "--share", "--precision", "fp32"], settings=env),
                             PAGE_FLAGS + MODEL_FLAGS)
    assert (flagged.port, flagged.share, flagged.precision, flagged.time_limit) == (9000, True, "fp32", 30.0)
    assert flagged.light_concurrency == env.light_concurrency  # a variable with no flag stays the environment's


def test_data_roots_come_from_the_variable_and_repeated_flags_and_default_to_none():
    from explorer.page import PAGE_FLAGS, parse_args

    assert Settings().data_root == () and parse_args([], settings=Settings()).data_root == []
    env = Settings.from_env({"EXPLORER_DATA_ROOTS": os.pathsep.join(["/srv/a", "/srv/b"])})
    assert env.data_root == ("/srv/a", "/srv/b")
    flagged = env.with_flags(parse_args(["--data-root", "/srv/c", "--data-root", "/srv/d"], settings=env), PAGE_FLAGS)
    assert flagged.data_root == ("/srv/a", "/srv/b", "/srv/c", "/srv/d")  # the flags add to the variable's


def test_a_model_commands_flags_are_its_settings_and_name_the_encoder():
    from explorer.cli import build_parser
    from explorer.commands.model_args import encoder_spec

    env = Settings.from_env({"EXPLORER_CHECKPOINT": "world-clip-powerclip", "EXPLORER_DEVICE": "cpu"})
    args = build_parser(env).parse_args(["eval", "--precision", "fp32"])
    spec = encoder_spec(env.with_flags(args, args.settings_flags))
    assert (spec.checkpoint, spec.device, spec.precision, spec.model) == ("world-clip-powerclip", "cpu", "fp32", None)
    assert build_parser(env).parse_args(["bench"]).precision == "native"  # the page's precision, as before
    assert not hasattr(build_parser(env).parse_args(["model-card"]), "settings_flags")  # its --checkpoint is its own


def test_every_flag_says_its_variable_and_default():
    import argparse

    parser = argparse.ArgumentParser()
    settings.add_setting_flags(parser, Settings(), [f.name for f in fields(Settings) if f.metadata["flag"]])
    helps = {a.dest: a.help for a in parser._actions if a.dest != "help"}
    for name, text in helps.items():
        env = FIELDS[name].metadata["env"]
        assert FIELDS[name].metadata["help"].replace("%", "%%") in text and "(default " in text
        assert env is None or env in text, name


def test_library_defaults_follow_the_installed_settings(process_settings):
    from explorer.engine import Engine
    from explorer.images import crops
    from explorer.models import encoders

    settings.use(Settings(cache_size=3, device="meta-device", max_models=1, model_budget_mb=10.0, crop_cache_mb=1.0))
    cache = LRUCache()
    for key in "abcde":
        cache.put(key, key)
    assert len(cache) == 3 and LRUCache(5).size == 5
    assert encoders.default_device() == "meta-device"
    assert crops._axis_cache.__wrapped__().max_bytes == 2**20

    class Stub:  # an encoder as far as the pool needs one
        device, precision, compile, is_embedded, label = "cpu", "auto", False, True, "stub"
        model = torch.nn.Linear(1, 1)

    engine = Engine(Stub(), method_names=())
    assert (engine.pool.max_models, engine.pool.budget_mb) == (1, 10.0)
    assert Engine(Stub(), method_names=(), max_models=2).pool.max_models == 2  # a value passed down wins


def test_only_the_settings_read_the_environment():
    """An entry point hands ``os.environ`` to ``Settings.from_env``; other modules read only other tools' variables."""
    found = []
    for path in [*sorted((ROOT / "explorer").rglob("*.py")), ROOT / "app.py"]:
        if path.name == "settings.py":
            continue
        tree = ast.parse(path.read_text())
        handed = {id(a) for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "from_env"
                  for a in n.args}
        read = {id(n.func.value) for n in ast.walk(tree) if isinstance(n, ast.Call)
                and getattr(n.func, "attr", "") in ("get", "setdefault") and n.args and isinstance(n.args[0], ast.Constant)
                and n.args[0].value in OTHER_TOOLS}
        for node in ast.walk(tree):
            is_env = (isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv")) or \
                     (isinstance(node, ast.Name) and node.id in ("environ", "getenv"))
            if is_env and id(node) not in handed | read:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []


def test_importing_the_page_and_the_command_line_reads_no_setting():
    code = ("import explorer.page, explorer.cli, explorer.api, explorer.ui.app; from explorer.core import settings; "
            "assert settings._current is None, 'read at import'")
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_readmes_tables_are_the_settings_tables():
    readme = (ROOT / "README.md").read_text()
    assert readme.count("<!-- settings: ") == len(settings.SECTIONS)
    assert with_tables(readme) == readme, "run python scripts/readme_settings.py"
    assert all(f"`{settings.variable(f)}`" in readme for f in fields(Settings) if f.metadata["env"])


def test_the_tables_are_remade_where_they_are_marked():
    text = "intro\n<!-- settings: serving -->\nold table\n<!-- /settings -->\nafter\n"
    made = with_tables(text)
    assert "old table" not in made and made.startswith("intro\n") and made.endswith("<!-- /settings -->\nafter\n")
    assert "| `--concurrency` | `EXPLORER_CONCURRENCY` | `2` |" in made and "EXPLORER_HOST" not in made
