"""Each benchmark's headline cell as its paper reports it: What'sUp's and VALSE's "all" the mean over subsets and
pieces (the pooled figure kept as ``pooled``), and What'sUp's ties as its authors' ``argmax`` counts them (the first
option wins) unless ``--strict-ties``, with the ties counted."""

import json

import numpy as np
import pytest
from layout_fixtures import valse, whatsup

from explorer.cli import main
from explorer.eval.accuracy import evaluate
from explorer.eval.headline import mean_over_kinds
from explorer.methods import get_method


@pytest.fixture(scope="module")
def cosine(embedded):
    return get_method("global", embedded)


def test_whatsup_and_valse_headlines_are_the_mean_over_subsets(tmp_path, cosine):
    for name, data, metric in (("whatsup", whatsup(tmp_path / "w"), "accuracy"),
                               ("valse", valse(tmp_path / "v"), "pairwise")):
        cells = evaluate([cosine], name, None, data=data)["global"]
        subsets = {k: v for k, v in cells.items() if ":" not in k and k not in ("all", "pooled")}
        assert len(subsets) >= 2
        hits = [v[metric] * v["n"] / 100 for v in subsets.values()]
        assert cells["all"][metric] == pytest.approx(np.mean([v[metric] for v in subsets.values()]), abs=0.01)
        assert cells["pooled"][metric] == pytest.approx(100 * sum(hits) / sum(v["n"] for v in subsets.values()),
                                                        abs=0.01)
        low, high = cells["all"]["ci"][metric]
        assert low <= cells["all"][metric] <= high and cells["all"]["kinds"] == len(subsets)
        assert name == "valse" or cells["all"][metric] != cells["pooled"][metric]  # subsets of 12, 11, 5 and 5


def test_the_mean_weighs_each_subset_alike():
    cell = mean_over_kinds(["a"] * 4 + ["b"], [True, True, True, True, False], "accuracy")
    assert (cell["accuracy"], cell["n"], cell["kinds"]) == (50.0, 5, 2)
    assert cell["ci"]["accuracy"] == [50.0, 50.0]  # each subset's items resampled within it: all right, all wrong


def tied(root):
    """What'sUp's COCO-QA one-object file with each item's foil its caption again: every item a tie."""
    path = root / "coco_qa_one_obj.json"
    rows = json.loads(path.read_text())
    path.write_text(json.dumps([[r[0], r[1], r[1]] for r in rows]))
    return len(rows)


def test_whatsup_ties_go_to_the_first_option_as_its_argmax_has_it(tmp_path):
    root = whatsup(tmp_path / "data")
    n = tied(root)
    scores = np.array([[0.3, 0.3]] * n)
    assert (np.argmax(scores, axis=-1) == 0).all()  # Controlled_Images / COCO_QA.evaluate_scores: preds == 0
    reports = {}
    for extra in ([], ["--strict-ties"]):
        out = tmp_path / f"r{len(extra)}.json"
        assert main(["eval", "--benchmark", "whatsup", "--data", str(root), "--json", str(out), *extra]) == 0
        reports[bool(extra)] = json.loads(out.read_text())
    authors, strict = (reports[k]["results"]["global"]["COCO_QA_one_obj"] for k in (False, True))
    assert (authors["accuracy"], strict["accuracy"]) == (100.0, 0.0)
    assert authors["ties"] == strict["ties"] == n and reports[False]["results"]["global"]["Controlled_Images_A"][
        "ties"] == 0
    assert "authors'" in reports[False]["ties"] and "strict" in reports[True]["ties"]
