import pytest

from explorer import world
from explorer.browse import load_items, method_is_right, select
from tests.test_datasets import ColourMethod, LengthMethod, sugarcrepe


def test_world_items_by_split_and_kind():
    items = load_items("world", limit=2)
    assert len(items) == 2 * len(world.SPLITS) * len(world.KINDS)
    assert {it.category for it in items} == {f"{s}/{k}" for s in world.SPLITS for k in world.KINDS}
    first = items[0]
    assert first.captions == world.swap_items("id", "attribute", 1)[0].captions
    assert first.images[0].load().size == (128, 128) and len(first.images) == 2


def test_filters_by_category_and_by_what_a_method_gets_wrong(tmp_path):
    items = load_items("sugarcrepe", sugarcrepe(tmp_path), limit=None)
    assert select(items) == [0, 1, 2]
    assert select(items, "swap_att") == [2]
    # the colour method gets item 1 wrong (a tie); the length method gets both add_obj items wrong
    assert select(items, None, ColourMethod()) == [1]
    assert select(items, "add_obj", LengthMethod()) == [0, 1]
    assert method_is_right(ColourMethod(), items[0])


def test_public_benchmark_needs_its_path():
    with pytest.raises(ValueError, match="needs the path"):
        load_items("winoground", None)
