"""An exported slice names each item's captions and pictures, not only its id."""

from pathlib import Path

import pandas as pd

from explorer.core.items import Item
from explorer.eval.dataset_loaders import ImageRef
from explorer.ui.browse_overview import described


def test_a_slice_carries_each_items_captions_and_image_names():
    photo = Item("swap_att", (ImageRef("pairs.csv line 2", Path("/data/cats/dog.jpg")),), ("a black dog", "a white dog"),
                 id="pairs/2", info={"category": "swap_att"})
    scene = Item("attribute", ("scene0", "scene1"), ("a red square", "a blue square"), id="id/attribute/0")
    rows = pd.DataFrame({"item": [1, 0], "id": ["id/attribute/0", "pairs/2"], "category": ["attribute", "swap_att"],
                         "SGI": ["right", "wrong"]})
    out = described(rows, [photo, scene])
    assert list(out.columns) == ["item", "id", "category", "caption 0", "caption 1", "image 0", "image 1", "SGI"]
    assert out.iloc[0].tolist() == [1, "id/attribute/0", "attribute", "a red square", "a blue square",
                                    "id/attribute/0 image 0", "id/attribute/0 image 1", "right"]
    assert out.iloc[1, 3:7].tolist() == ["a black dog", "a white dog", "dog.jpg", ""]  # its one picture, by name
    assert list(rows.columns) == ["item", "id", "category", "SGI"]  # the table itself untouched
