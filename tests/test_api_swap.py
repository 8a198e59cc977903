"""The notebook's doors to both sides of the swap: ``Explorer.propose`` and ``Explorer.swap`` on a file."""

import pytest

from explorer import world
from explorer.api import Explorer
from explorer.eval.accuracy import SWAP_SCORES


@pytest.fixture(scope="module")
def explorer():
    return Explorer(methods=["global", "sgi"])


def test_propose_then_swap_a_drawing_read_from_a_file(explorer, tmp_path):
    item = world.swap_items("drawn-light", "attribute", 1)[0]
    path = tmp_path / "drawing.png"
    item.pictures()[0].save(path)
    proposal = explorer.propose(path)
    assert sorted((o.color, o.shape) for o in proposal.objects) == sorted(o.combo for o in item.images[0].objects)
    assert all(len(o.box) == 4 and 0 < o.confidence <= 1 for o in proposal.objects)
    both = explorer.swap(path, proposal.caption_a, proposal.caption_b)
    assert both.image_b.size == item.pictures()[0].size
    assert list(both.table().columns) == ["method", "prefers", "A", "B", "A - B", *SWAP_SCORES]
    with pytest.raises(ValueError, match="names none of the world's objects"):
        explorer.swap(path, "a dog and a cat", "a cat and a dog")
