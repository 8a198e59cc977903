"""Browse's overview: verdicts and margins scored once per item and model, the method-against-method matrix and its
slices, closest calls first, export; large sets filter with no analysis run again."""

import json
import time

import numpy as np
import pandas as pd
import pytest

from explorer.eval import overview
from explorer.eval.accuracy import Outcome
from explorer.eval.benchmark_registry import load_items
from explorer.methods import get_method


@pytest.fixture(scope="module")
def scored(embedded):
    methods = {name: get_method(name, embedded) for name in ("global", "sgi")}
    items = load_items("world", limit=4, split="id")  # 16 items, every kind
    return items, methods, overview.score_items(methods, embedded.label, items)


def test_each_item_is_scored_once_per_model(scored, embedded, monkeypatch):
    items, methods, found = scored
    monkeypatch.setattr(overview, "score_chunk", lambda *a, **k: pytest.fail("scored again"))
    assert overview.score_items(methods, embedded.label, items) == found  # from the cache: no analysis
    with pytest.raises(pytest.fail.Exception):
        overview.score_items(methods, "another model", items[:1])


def test_the_table_gives_each_methods_verdict_and_margin_as_the_evaluation_does(scored):
    items, methods, found = scored
    table = overview.frame(items, found, methods)
    assert list(table.columns) == ["item", "id", "category", "global cosine", "global cosine margin", "SGI",
                                   "SGI margin"]
    for row, outcome in zip(table.itertuples(index=False), found):
        assert row[3] == ("right" if outcome["global"].correct else "wrong")
        assert (row[4] > 0) == outcome["global"].correct  # the margin's sign is the verdict
    counts = overview.matrix(table, "SGI", "global cosine")
    cells = overview.cell_of(table["SGI"], table["global cosine"])
    assert counts.iloc[1, 1] == f"fixes: {(cells == 'fixes').sum()}" and (cells != "n/a").all()
    fixes = overview.slice_of(table, "all", "SGI", "global cosine", "fixes")
    assert ((fixes["SGI"] == "right") & (fixes["global cosine"] == "wrong")).all() and len(fixes) > 0
    closest = overview.slice_of(table, "id/attribute", "SGI", "global cosine", None, closest=True)
    assert set(closest["category"]) == {"id/attribute"}
    assert list(closest["SGI margin"].abs()) == sorted(closest["SGI margin"].abs())


def test_a_slice_is_exported_as_csv_and_json(scored, tmp_path):
    items, methods, found = scored
    rows = overview.slice_of(overview.frame(items, found, methods), "all", "SGI", "global cosine", "both right")
    csv_path, json_path = overview.export(rows, tmp_path)
    assert pd.read_csv(csv_path)["id"].tolist() == rows["id"].tolist()
    assert [r["id"] for r in json.loads(json_path.read_text())] == rows["id"].tolist()


def test_an_exported_slice_writes_formula_cells_as_text_and_an_unreadable_item_as_such(tmp_path):
    from explorer.core.items import Item
    from explorer.eval.accuracy import Unreadable

    items = [Item(kind, ("scene",), ("a", "b"), id=name) for kind, name in
             (("=HYPERLINK(1)", "@SUM(A1)"), ("-2+3", "\tx"), ("plain", "ok"))]
    found = [{"global": Outcome(True, None, 0.5, (0,))}, {"global": Outcome(False, None, -0.25, (1,))},
             Unreadable("cut short")]
    table = overview.frame(items, found, {"global": type("M", (), {"label": "=cos", "trained": True})()})
    csv_path, json_path = overview.export(table, tmp_path)
    written = pd.read_csv(csv_path, dtype=str, keep_default_na=False)
    assert list(written.columns)[3] == "'=cos" and written["category"].tolist() == ["'=HYPERLINK(1)", "'-2+3", "plain"]
    assert written["id"].tolist() == ["'@SUM(A1)", "'\tx", "ok"] and written["'=cos margin"].tolist()[1] == "-0.25"
    assert written["'=cos"].tolist() == ["right", "wrong", "unreadable"]
    assert json.loads(json_path.read_text())[0]["category"] == "=HYPERLINK(1)"  # JSON is data: kept as given


class _Untrained:
    label, trained = "TFLocal", False


def test_five_thousand_items_filter_in_milliseconds_without_scoring(monkeypatch):
    """The overview of 5,000 items is built, sliced by a matrix cell and sorted by margin with no analysis."""
    rng = np.random.default_rng(0)
    items = load_items("world", limit=1250, split="id")  # 4 kinds x 1250
    found = [{"global": Outcome(bool(a > 0), None, float(a), (0,)), "sgi": Outcome(bool(b > 0), None, float(b), (0,)),
              "tflocal": Outcome(False, None, 0.0, (1,))} for a, b in rng.normal(size=(len(items), 2))]

    class Named:
        def __init__(self, label):
            self.label, self.trained = label, True

    methods = {"global": Named("global cosine"), "sgi": Named("SGI"), "tflocal": _Untrained()}
    monkeypatch.setattr(overview, "score_chunk", lambda *a, **k: pytest.fail("no analysis for an overview"))
    start = time.perf_counter()
    table = overview.frame(items, found, methods)
    built = time.perf_counter() - start
    start = time.perf_counter()
    rows = overview.slice_of(table, "all", "SGI", "global cosine", "fixes", closest=True)
    counts = overview.matrix(table, "SGI", "global cosine")
    sliced = time.perf_counter() - start
    assert len(table) == 5000 and set(table["TFLocal"]) == {"n/a"} and len(rows) > 1000
    assert counts.iloc[1, 1] == f"fixes: {len(rows)}"
    print(f"5000 items: table {1000 * built:.0f} ms, a cell's slice sorted and the matrix {1000 * sliced:.1f} ms")
    assert sliced < 1.0


def test_two_models_side_by_side_and_the_matrix_of_b_against_a(scored, embedded, tmp_path):
    from explorer.models.loader import EncoderSpec, load_encoder

    items, methods_a, found_a = scored
    finetuned = load_encoder(EncoderSpec(checkpoint="world-clip-finetune"))
    methods_b = {"global": get_method("global", finetuned)}
    found_b = overview.score_items(methods_b, finetuned.label, items)
    table = overview.two_models(items, (found_a, found_b), (methods_a, methods_b))
    assert list(table.columns) == ["item", "id", "category", "A: global cosine", "A: global cosine margin",
                                   "B: global cosine", "B: global cosine margin", "A: SGI", "A: SGI margin"]
    for row, a, b in zip(table.itertuples(index=False), found_a, found_b):  # each model's own verdict and margin
        assert (row[3], row[4]) == ("right" if a["global"].correct else "wrong", a["global"].margin)
        assert (row[5], row[6]) == ("right" if b["global"].correct else "wrong", b["global"].margin)
    cells = overview.cell_of(table["B: global cosine"], table["A: global cosine"])
    fixes = [i for i, (a, b) in enumerate(zip(found_a, found_b)) if b["global"].correct and not a["global"].correct]
    assert list(table.index[cells == "fixes"]) == fixes and len(fixes) > 0  # B right where A is wrong
    counts = overview.matrix(table, "B: global cosine", "A: global cosine")
    assert counts.iloc[1, 1] == f"fixes: {len(fixes)}" and list(counts.columns)[1] == "B: global cosine right"
    d = overview.paired_of(table, "B: global cosine", "A: global cosine")
    breaks = (cells == "breaks").sum()
    assert (d["n"], d["fixes"], d["breaks"]) == (len(items), len(fixes), breaks)
    assert d["diff"] == pytest.approx(100 * (len(fixes) - breaks) / len(items), abs=0.01)
    rows = overview.slice_of(table, "all", "B: global cosine", "A: global cosine", "fixes")
    csv_path, _ = overview.export(rows, tmp_path, models={"A": embedded.label, "B": finetuned.label})
    written = pd.read_csv(csv_path)
    assert list(written.columns[3:5]) == ["model A", "model B"] and len(written) == len(fixes)
    assert set(written["model B"]) == {finetuned.label} and (written["B: global cosine margin"] > 0).all()
