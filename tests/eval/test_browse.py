"""Browsing a benchmark: items by split and kind, the filters, each method's verdict, and the bounds of what a page asks."""

import re

import pytest
from conftest import ColourMethod, LengthMethod, sugarcrepe

from explorer import world
from explorer.eval.accuracy import score_chunk
from explorer.eval.benchmark_registry import load_items
from explorer.eval.browse import BROWSE_SIZE, for_main_page, read, select


def test_world_items_by_split_and_kind():
    items = load_items("world", limit=2)
    assert len(items) == 2 * len(world.SPLITS) * len(world.KINDS)
    assert {it.category for it in items} == {f"{s}/{k}" for s in world.SPLITS for k in world.KINDS}
    first = items[0]
    assert first.captions == world.swap_items("id", "attribute", 1)[0].captions
    assert [im.size for im in first.pictures(BROWSE_SIZE)] == [(128, 128)] * 2


def test_filters_by_category_and_by_what_a_method_gets_wrong(tmp_path):
    items = load_items("sugarcrepe", sugarcrepe(tmp_path))
    assert select(items) == [0, 1, 2]
    assert select(items, "swap_att") == [2]
    # the colour method gets item 1 wrong (a tie); the length method gets both add_obj items wrong
    assert select(items, None, ColourMethod()) == [1]
    assert select(items, "add_obj", LengthMethod()) == [0, 1]
    assert score_chunk([ColourMethod()], items[:1])[0]["colour"].correct


def test_public_benchmark_needs_its_path():
    with pytest.raises(ValueError, match="needs the path"):
        load_items("winoground", None)


def test_reading_an_item_gives_the_cosines_and_each_verdict(tmp_path, embedded):
    from explorer.methods import get_method

    items = load_items("sugarcrepe", sugarcrepe(tmp_path))
    methods = {"global": get_method("global", embedded), "colour": ColourMethod()}
    reading = read(methods, items[0], items[0].pictures())
    assert reading.cosines.shape == (2, 1) and "caption 0 scored above" in reading.rule
    assert reading.verdicts["fake colour match"] is True  # a red image: "a red square" over "a blue square"
    assert list(reading.verdicts) == ["global cosine", "fake colour match"]


def test_every_registered_benchmark_can_be_browsed_and_sent():
    single = load_items("world-single", limit=2, split="heldout")
    assert [it.category for it in single] == ["heldout/single"] * 2
    image, a, b = for_main_page(single[0])
    assert a == single[0].captions[single[0].right[0]] and b != a and image is single[0].images[0]
    swap = load_items("world", limit=1, split="id")[0]
    assert for_main_page(swap) == (swap.images[0], *swap.captions)


@pytest.mark.parametrize("given, said", [(1e9, "got 1e+09"), (-1, "got -1"), (0, "got 0"), (2.5, "got 2.5"),
                                         (None, "got None"), ("many", "got 'many'"), (float("nan"), "got nan")])
def test_items_per_category_is_a_whole_number_within_bounds_or_refused_by_name(given, said):
    from explorer.eval.browse import MAX_PER_CATEGORY, items_per_category
    from explorer.images.inputs import InputError

    assert items_per_category(7) == 7 and items_per_category("12") == 12
    assert items_per_category(MAX_PER_CATEGORY) == MAX_PER_CATEGORY
    with pytest.raises(InputError, match=f"Items per category must be .*from 1 to {MAX_PER_CATEGORY}; {re.escape(said)}"):
        items_per_category(given)


def test_browse_reads_a_public_benchmark_as_its_authors_and_says_so(tmp_path, embedded):
    """On pictures wider than tall, Browse's verdicts and its wrong-only filter are the default eval's (the model's
    own preprocess), where the whole view would turn some of them."""
    from layout_fixtures import sugarcrepe

    from explorer.eval.accuracy import item_outcomes
    from explorer.eval.browse import reading_note
    from explorer.methods import get_method

    method = get_method("global", embedded)
    items = load_items("sugarcrepe", sugarcrepe(tmp_path / "sc"))
    evaluated = [f["global"].correct for f in item_outcomes([method], items, "sugarcrepe")]
    whole = [f["global"].correct for f in item_outcomes([method], load_items("sugarcrepe", tmp_path / "sc",
                                                                              view="whole"), "sugarcrepe")]
    browsed = [read({"global": method}, it, it.pictures()).verdicts[method.label] for it in items]
    assert browsed == evaluated != whole
    assert select(items, None, method) == [i for i, ok in enumerate(evaluated) if not ok]
    assert reading_note(items).startswith(" Read as its authors' script reads it")
