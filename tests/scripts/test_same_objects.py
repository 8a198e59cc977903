"""scripts/same_objects.py: a world picture's view and objects read, and two readings told apart by one box."""

import copy
import runpy
from pathlib import Path
from types import SimpleNamespace

from explorer.core.items import picture
from explorer.world import swap_items

ROOT = Path(__file__).resolve().parents[2]


def test_a_reading_holds_the_objects_and_a_moved_box_is_told():
    same = SimpleNamespace(**runpy.run_path(str(ROOT / "scripts" / "same_objects.py"), run_name="same_objects"))
    read = same.reading(picture(swap_items("shift", "attribute", 1)[0].images[0], same.SIZE))
    assert read["fit"][1] == "as is" and len(read["picture"]) >= 2 and read["whole"] == read["picture"]
    a = {"shift": [read]}
    assert same.compare(a, copy.deepcopy(a))
    moved = copy.deepcopy(a)
    moved["shift"][0]["picture"][0][0] += 1
    assert not same.compare(a, moved)
