"""Model against model: the paired difference, its bootstrap interval and McNemar's exact p on hand-computable cases;
two models' outcomes paired item by item; ``eval --compare`` writing both models and the comparison."""

import json
from math import comb

import numpy as np
import pandas as pd
import pytest

from explorer import world
from explorer.cli import main
from explorer.core import intervals
from explorer.eval import compare
from explorer.eval.accuracy import Outcome, Unreadable, item_outcomes
from explorer.eval.benchmark_registry import load_items
from tests.conftest import ColourMethod, LengthMethod, sugarcrepe


def _binomial_p(fixes: int, breaks: int) -> float:
    """McNemar's exact p by hand: twice the smaller tail of Binomial(fixes + breaks, 1/2), at most 1."""
    n, k = fixes + breaks, min(fixes, breaks)
    return min(1.0, 2 * sum(comb(n, i) for i in range(k + 1)) / 2 ** n)


@pytest.mark.parametrize("fixes, breaks, p", [(6, 0, 0.03125), (10, 2, 158 / 4096), (2, 1, 1.0), (0, 0, 1.0),
                                               (3, 7, 0.34375)])
def test_mcnemars_exact_p_is_the_binomial_tail_of_the_discordant_items(fixes, breaks, p):
    assert compare.mcnemar_p(fixes, breaks) == pytest.approx(p, abs=1e-12)
    assert compare.mcnemar_p(fixes, breaks) == pytest.approx(_binomial_p(fixes, breaks), abs=1e-12)
    assert compare.mcnemar_p(breaks, fixes) == compare.mcnemar_p(fixes, breaks)  # two-sided: A and B swap freely


def test_the_paired_difference_counts_fixes_and_breaks():
    a = [True, True, False, False, True, False, True, True]
    b = [True, False, True, True, True, True, False, True]  # fixes: items 2, 3, 5; breaks: 1, 6
    out = compare.paired(a, b)
    assert (out["a"], out["b"], out["diff"], out["n"], out["fixes"], out["breaks"]) == (62.5, 75.0, 12.5, 8, 3, 2)
    assert out["mcnemar_p"] == pytest.approx(1.0)  # 3 against 2 of 5: no evidence at all
    low, high = out["ci"]
    assert low < out["diff"] < high


def test_the_interval_is_a_paired_bootstrap_over_items_with_a_fixed_seed():
    rng = np.random.default_rng(7)
    a, b = rng.random(60) < 0.4, rng.random(60) < 0.7
    d = b.astype(float) - a.astype(float)  # resampled by item: A's and B's verdicts on one item stay together
    rows = np.random.default_rng(intervals.SEED).integers(0, len(d), size=(intervals.RESAMPLES, len(d)))
    expected = np.percentile(100 * d[rows].mean(axis=1), [2.5, 97.5])
    assert compare.paired(a, b)["ci"] == [round(float(v), 2) for v in expected]
    assert compare.paired(a, b) == compare.paired(a, b)  # the seed: the same numbers on a rerun


def test_a_sure_change_has_a_point_interval_and_no_change_reads_p_one():
    everything = compare.paired([False] * 10, [True] * 10)
    assert everything["diff"] == 100.0 and everything["ci"] == [100.0, 100.0]
    assert everything["mcnemar_p"] == pytest.approx(2 / 2 ** 10, rel=1e-3)
    same = compare.paired([True, False, True], [True, False, True])
    assert (same["diff"], same["ci"], same["mcnemar_p"], same["fixes"], same["breaks"]) == (0.0, [0.0, 0.0], 1.0, 0, 0)
    with pytest.raises(ValueError, match="same items"):
        compare.paired([True], [True, False])


def test_two_models_outcomes_pair_item_by_item_per_kind_leaving_out_the_unreadable():
    right, wrong = Outcome(True, True, 0.1, (0, 1)), Outcome(False, True, -0.1, (1, 1))
    found_a = [{"m": wrong}, {"m": wrong}, {"m": right}, Unreadable("cut short"), {"m": right}]
    found_b = [{"m": right}, {"m": right}, {"m": wrong}, {"m": right}, Unreadable("cut short")]
    kinds = ["x", "x", "y", "y", "y"]
    out = compare.compared(["m"], kinds, found_a, found_b)["m"]
    assert (out["x"]["fixes"], out["x"]["breaks"], out["x"]["n"]) == (2, 0, 2)
    assert (out["y"]["fixes"], out["y"]["breaks"], out["y"]["n"]) == (0, 1, 1)  # two unreadable items left out
    assert out["all"] == compare.paired([False, False, True], [True, True, False])


def test_holms_adjustment_runs_over_every_cell_of_a_comparison():
    cells = {"m": {"id": {"x": {"mcnemar_p": 0.01}, "all": {"mcnemar_p": 0.04}},
                   "shift": {"x": {"mcnemar_p": 0.03}, "all": {"mcnemar_p": 0.5}}}}
    out = compare.with_holm(cells)["m"]
    # sorted 0.01, 0.03, 0.04, 0.5: times 4, 3, 2, 1, never below the one before
    assert out["id"]["x"]["mcnemar_p_holm"] == pytest.approx(0.04)
    assert out["shift"]["x"]["mcnemar_p_holm"] == pytest.approx(0.09)
    assert out["id"]["all"]["mcnemar_p_holm"] == pytest.approx(0.09)
    assert out["shift"]["all"]["mcnemar_p_holm"] == pytest.approx(0.5)
    assert out["id"]["x"]["mcnemar_p"] == 0.01  # the unadjusted p kept beside it


def test_evaluate_pair_scores_both_models_on_the_same_items(tmp_path):
    root = sugarcrepe(tmp_path)

    class BlindColour(LengthMethod):  # B: the same method name, blind to the image
        name = "colour"

    a, b = [ColourMethod()], [BlindColour()]
    results_a, results_b, comparison = compare.evaluate_pair(a, b, "sugarcrepe", None, data=root)
    items = load_items("sugarcrepe", root)
    hits_a = [f["colour"].correct for f in item_outcomes(a, items, "sugarcrepe")]
    hits_b = [f["colour"].correct for f in item_outcomes(b, items, "sugarcrepe")]
    assert comparison["colour"]["all"].pop("mcnemar_p_holm") >= comparison["colour"]["all"]["mcnemar_p"]
    assert comparison["colour"]["all"] == compare.paired(hits_a, hits_b)
    assert set(comparison["colour"]) == {"add_obj", "swap_att", "all"}
    assert results_a["colour"]["all"]["accuracy"] == comparison["colour"]["all"]["a"]
    assert results_b["colour"]["all"]["accuracy"] == comparison["colour"]["all"]["b"]


def _group_hits(encoder, split: str, limit: int) -> list[bool]:
    """Each world item's group verdict under ``encoder``'s global cosine, recomputed from its embeddings."""
    hits = []
    for kind in world.KINDS:
        for item in world.swap_items(split, kind, limit):
            images = encoder.embed_images(item.pictures(encoder.image_size)).numpy()
            s = encoder.embed_texts(list(item.captions)).numpy() @ images.T
            hits.append(bool(s[0, 0] > s[1, 0] and s[1, 1] > s[0, 1] and s[0, 0] > s[0, 1] and s[1, 1] > s[1, 0]))
    return hits


def test_eval_compare_writes_both_models_and_the_comparison_in_json_csv_and_html(tmp_path, embedded):
    from explorer.models.loader import EncoderSpec, load_encoder

    path = tmp_path / "r.json"
    assert main(["eval", "--methods", "global", "--split", "id", "--limit", "2", "--compare", "world-clip-finetune",
                 "--json", str(path)]) == 0
    report = json.loads(path.read_text())
    assert report["model"] == "world-clip (embedded)" and "world-clip-finetune" in report["model_b"]
    cell = report["comparison"]["global"]["id"]["all"]
    assert set(cell) >= {"a", "b", "diff", "ci", "mcnemar_p"}
    finetuned = load_encoder(EncoderSpec(checkpoint="world-clip-finetune"))
    expected = compare.paired(_group_hits(embedded, "id", 2), _group_hits(finetuned, "id", 2))
    assert {k: v for k, v in cell.items() if k != "mcnemar_p_holm"} == expected  # from the models' own embeddings
    assert cell["mcnemar_p"] <= cell["mcnemar_p_holm"] <= 1
    assert report["results"]["global"]["id"]["all"]["group"] == cell["a"]
    assert report["results_b"]["global"]["id"]["all"]["group"] == cell["b"]
    rows = pd.read_csv(tmp_path / "r-comparison.csv")
    row = rows[rows["category"] == "id/all"].iloc[0]
    assert (row["diff"], row["low"], row["high"], row["mcnemar_p"]) == (cell["diff"], *cell["ci"], cell["mcnemar_p"])
    assert len(rows) == len(world.KINDS) + 1
    n = len(world.KINDS) * 2  # both models' outcomes kept, each said read back or scored
    assert report["resumed"] == report["resumed_b"] == {"read back": 0, "not in the file": n}
    assert pd.read_csv(tmp_path / "r-results_b.csv")["value"].notna().all()
    html = (tmp_path / "r.html").read_text()
    assert html.count("Plotly.newPlot") == 2 and "McNemar" in html and "global (B)" in html  # differences, results
    assert html.count("plotly.js v") == 1  # plotly.js embedded once: the page opens offline


def test_eval_compare_names_what_it_takes_when_the_name_is_unknown(caplog):
    assert main(["eval", "--limit", "1", "--split", "id", "--compare", "no-such-model"]) == 2
    said = caplog.text
    assert "world-clip-finetune" in said and "weights file" in said


def test_the_guides_model_against_model_table_is_its_record():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    record = json.loads((root / "docs/results/world-compare-finetune.json").read_text())
    assert record["model_b"] == "world-clip @ world-clip-finetune.safetensors" and record["limit"] == 10
    names = {"global cosine": "global", "SGI": "sgi"}
    rows = [line.strip("|").split("|") for line in (root / "docs/guide.md").read_text().splitlines()
            if line.startswith(("| global cosine |", "| SGI |"))]
    assert len(rows) == 8
    for method, split, a, b, diff, counts, p, p_holm, n in ([cell.strip() for cell in row] for row in rows):
        cell = record["comparison"][names[method]][split]["all"]
        assert (float(a), float(b), int(n)) == (cell["a"], cell["b"], cell["n"])
        assert diff == f"{cell['diff']} [{cell['ci'][0]}, {cell['ci'][1]}]"
        assert counts == f"{cell['fixes']} / {cell['breaks']}"
        assert float(p) == pytest.approx(cell["mcnemar_p"], rel=0.05)  # shown to two or three digits
        assert float(p_holm) == pytest.approx(cell["mcnemar_p_holm"], rel=0.05)
