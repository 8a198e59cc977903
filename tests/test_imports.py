"""Every module's imports in one order (isort, as pyproject.toml's [tool.isort] sets it): the standard library, third
party, then the project, each sorted, a long ``from`` import wrapped as a grid."""

from pathlib import Path

import isort

ROOT = Path(__file__).resolve().parents[1]
CONFIG = isort.Config(settings_path=str(ROOT), quiet=True)


def test_every_module_of_the_code_tests_and_scripts_has_its_imports_sorted():
    paths = sorted(p for folder in ("explorer", "tests", "scripts") for p in (ROOT / folder).rglob("*.py"))
    assert len(paths) > 300
    assert [str(p.relative_to(ROOT)) for p in paths if not isort.check_file(p, config=CONFIG)] == []


def test_the_project_is_sorted_after_third_party_and_out_of_order_is_found(tmp_path):
    module = tmp_path / "module.py"
    module.write_text("import os\n\nfrom explorer import world\nimport numpy\n")
    assert not isort.check_file(module, config=CONFIG)
    module.write_text("import os\n\nimport numpy\n\nfrom explorer import world\n")
    assert isort.check_file(module, config=CONFIG)
