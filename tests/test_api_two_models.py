"""The notebook API's overview: a benchmark's items under the loaded model and, given a second model by any of its
names, under both side by side, as Browse shows them."""

import pytest

from explorer.eval import overview


@pytest.mark.parametrize("against", ["world-clip-finetune", "world-clip-finetune (project checkpoint)"])
def test_the_overview_takes_a_second_model_by_checkpoint_or_menu_name(against):
    from explorer.api import Explorer

    explorer = Explorer(methods=("global",))
    alone = explorer.overview("world", limit=2)
    both = explorer.overview("world", limit=2, against=against)
    n = 2 * 4 * 4  # per split and kind, 4 splits x 4 kinds
    assert len(alone) == len(both) == n
    assert both["A: global cosine"].tolist() == alone["global cosine"].tolist()  # A is the loaded model
    assert both["A: global cosine margin"].tolist() == alone["global cosine margin"].tolist()
    assert both["B: global cosine"].tolist() != both["A: global cosine"].tolist()  # B reads the items its own way
    counts = overview.matrix(both, "B: global cosine", "A: global cosine")
    fixes = ((both["B: global cosine"] == "right") & (both["A: global cosine"] == "wrong")).sum()
    assert counts.iloc[1, 1] == f"fixes: {fixes}"


def test_an_unknown_second_model_is_named_with_what_is_taken():
    from explorer.api import Explorer
    from explorer.models.model_errors import ModelUnavailable

    with pytest.raises(ModelUnavailable, match="shipped checkpoint"):
        Explorer(methods=("global",)).overview("world", limit=1, against="no-such-model")
