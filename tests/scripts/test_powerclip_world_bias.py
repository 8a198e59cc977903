"""scripts/powerclip_world_bias.py: why PowerCLIP's world rows fall below chance, decomposed; the doc's tables are its
records'."""

import json
import runpy
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "powerclip_world_bias.py"


@pytest.fixture(scope="module")
def script():
    return SimpleNamespace(**runpy.run_path(str(SCRIPT), run_name="powerclip_world_bias"))


def test_the_decomposition_gives_the_verdicts(script):
    rng = np.random.default_rng(0)
    for _ in range(200):
        s = rng.normal(size=(2, 2))
        found = script.decompose(s)
        d, bt, bi = found["d"], found["b_text"], found["b_image"]
        assert s[0, 0] - s[1, 0] == pytest.approx(d - bt) and s[1, 1] - s[0, 1] == pytest.approx(d + bt)
        assert found["text"] == (d > abs(bt)) and found["image"] == (d > abs(bi))
    offset = script.decompose(np.array([[0.30, 0.31], [0.40, 0.41]]))  # caption 1 ahead on both images
    assert offset["d"] == pytest.approx(0) and not offset["text"] and offset["b_text"] == pytest.approx(0.1)


def test_a_tiny_run_checks_the_method_and_places_the_phrases(script, tmp_path):
    out = tmp_path / "bias.json"
    assert script.main(["--splits", "val-id", "--limit", "2", "--kinds", "attribute", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["checked_against_method"] == 2  # every item's powerset scores are the method's own
    found = report["splits"]["val-id"]
    assert set(found) == set(script.VARIANTS) | {"attribute"} and found["powerset"]["n"] == 2
    phrases = report["phrases"]
    assert phrases["n"] == 4 and phrases["named"] + phrases["other"] + phrases["elsewhere"] == pytest.approx(100)
    assert phrases["mean own object"] <= phrases["mean best"]  # the best subset is at least the object's own


@pytest.mark.parametrize("record, variants", [("powerclip/world-bias-val.json", None),
                                              ("powerclip/world-bias-test.json", ("powerset", "global")),
                                              ("former/powerclip/world-bias-val.json", None),
                                              ("former/powerclip/world-bias-test.json", ("powerset", "global"))])
def test_the_docs_tables_are_the_records(script, record, variants):
    """Today's model's tables and the former model's, each from its record."""
    report = json.loads((ROOT / "docs" / "results" / record).read_text())
    table = script.markdown(report, variants or script.VARIANTS)
    assert table in (ROOT / "docs" / "powerclip-world.md").read_text()
    assert report["command"].startswith("python scripts/powerclip_world_bias.py") and report["checked_against_method"]
