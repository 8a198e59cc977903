"""scripts/explainer_references.py: the re-implementations of the explainers' reference code are wired right (on the
cosine, Chefer's rollout is the project's rollout), and the doc's table is the committed record."""

import json
import runpy
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]


@pytest.fixture(scope="module")
def script():
    return runpy.run_path(str(ROOT / "scripts" / "explainer_references.py"), run_name="explainer_references")


def test_on_the_cosine_the_notebooks_rollout_is_the_projects(script, embedded):
    figures = script["measure"](embedded, 2)
    for scope in ("captions", "segments"):
        same = figures[scope]["rollout.cosine"]
        assert same["r"] > 0.9999 and same["argmax_agreement"] == 100.0 and same["maps_without_r"] == 0
        assert figures[scope]["rollout.logit_last"]["r"] > 0.9999  # one block: the logit scale factors out
        assert figures[scope]["grad_eclip.paper"]["maps"] == same["maps"]
    assert figures["captions"]["rollout.cosine"]["maps"] == 4  # 2 items x their 2 captions


def test_the_docs_table_is_the_committed_record(script):
    record = json.loads((ROOT / "docs/results/explanations/references.json").read_text())
    assert record["command"].startswith("python scripts/explainer_references.py --items ")
    assert script["markdown"](record) in (ROOT / "docs" / "explanations.md").read_text()
