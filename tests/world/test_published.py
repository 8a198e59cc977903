"""The world's versions of the published benchmarks' ideas (``explorer/world/published.py``): each item says what its
pictures show, and the world's What'sUp is scored with the authors' pair and set accuracy."""

import numpy as np
import pytest

from explorer.eval.accuracy import evaluate, item_outcomes
from explorer.eval.benchmark_registry import BENCHMARKS, load_items
from explorer.methods import get_method
from explorer.world import published
from explorer.world.captions import relation_word


@pytest.mark.parametrize("split", ["id", "heldout", "drawn-dark"])
def test_whatsup_sets_hold_four_prepositions_each_told_by_its_own_caption(split):
    items = published.whatsup_items(split, 8)
    assert len(items) == 8 and all(len(it.captions) == 4 and it.right == (0,) for it in items)
    for k in range(2):
        group = items[4 * k: 4 * k + 4]
        assert [it.info["preposition"] for it in group] == ["left", "right", "above", "below"]
        assert len({it.info["pair"] for it in group}) == 1 and len({it.captions for it in group}) == 4
        for it in group:
            a, b = it.images[0].objects
            assert f" {relation_word(a, b)} " in it.captions[0]  # its own caption says what the picture shows
    assert published.whatsup_items(split, 8)[5].captions == items[5].captions  # drawn the same every time


def test_sugarcrepe_pp_positives_share_their_words_and_the_negative_swaps_them():
    for it in published.sugarcrepe_pp_items("id", 5):
        p1, p2, neg = it.captions
        assert sorted(p1.split()) == sorted(p2.split()) and p1 != p2 and it.also_right == (1,)
        assert neg not in (p1, p2) and it.kind in ("swap_att", "swap_obj")


def test_valse_foils_change_one_phenomenon():
    items = published.valse_items("id", 4)
    assert [it.kind for it in items] == ["relations"] * 4 + ["foil-it"] * 4
    for it in items:
        caption, foil = it.captions
        changed = [(x, y) for x, y in zip(caption.split(), foil.split()) if x != y]
        assert len(caption.split()) == len(foil.split()) and 1 <= len(changed) <= 3  # "to the left of" -> "right"
        if it.kind == "foil-it":
            assert changed[0][1] not in {o.shape for o in it.images[0].objects}


def test_eqben_pairs_are_a_visual_minimal_change_apart():
    for it in published.eqben_items("id", 3):
        before, after = (it.images[0].objects, it.images[1].objects)
        if it.kind == "attribute":
            assert [o.color == p.color for o, p in zip(before, after)] == [False, True]
        elif it.kind == "count":
            assert after[:2] == before and len(after) == 3
        else:  # location: the objects trade places
            assert {(o.cx, o.cy) for o in before} == {(o.cx, o.cy) for o in after} and before != after
        assert it.captions[0] != it.captions[1]


def test_world_versions_are_registered_with_the_idea_they_stand_for():
    for name in ("world-colorswap", "world-whatsup", "world-sugarcrepe-pp", "world-valse", "world-eqben"):
        b = BENCHMARKS[name]
        assert not b.from_files and "idea" in b.citation and load_items(name, limit=4, split="id")


def test_world_whatsup_pair_and_set_accuracy_by_the_authors_formula(embedded):
    method = get_method("global", embedded)
    items = load_items("world-whatsup", limit=24, split="id")
    correct = [f["global"].correct for f in item_outcomes([method], items, "world-whatsup")]
    cell = evaluate([method], "world-whatsup", 24, ["id"])["global"]["id"]["controlled"]
    sets = np.array(correct).reshape(-1, 4)  # left, right, above, below of each pair
    pairs = (sets[:, 0] & sets[:, 1]).sum() + (sets[:, 2] & sets[:, 3]).sum()
    assert cell["accuracy"] == pytest.approx(100 * np.mean(correct), abs=0.005)
    assert cell["pair"] == pytest.approx(pairs * 100 / (len(items) / 2), abs=0.005)
    assert cell["set"] == pytest.approx(sets.all(1).sum() * 100 / (len(items) / 4), abs=0.005)


def test_the_page_offers_an_example_of_each_idea(tmp_path):
    from explorer.world.examples import EXAMPLES_DIR, PUBLISHED, examples, published_examples

    written = published_examples(tmp_path)
    shipped = {e.name: e for e in examples()}
    assert len(written) == len(PUBLISHED)
    for entry in written:  # the shipped index holds each, its picture the one drawn now
        example = shipped[entry["name"]]
        assert (example.caption_a, example.caption_b) == (entry["caption_a"], entry["caption_b"])
        assert example.path == EXAMPLES_DIR / entry["file"] and example.caption_a != example.caption_b
        assert (tmp_path / entry["file"]).read_bytes() == example.path.read_bytes()
