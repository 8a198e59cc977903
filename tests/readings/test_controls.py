"""Controls through the binding readings (``explorer/readings/controls.py``, ``explorer.api.binding_readings``):
encoders that cannot bind read at chance on every reading, the one built from the ground truth reads above chance;
the pictures give a scene and its swap the same share of each colour, to the pixel."""

import numpy as np
import pytest

from conftest import quick_probes
from explorer.api import binding_readings
from explorer.readings import controls
from explorer.readings.binding import world_scenes
from explorer.readings.equal_area import mask, picture, placed, target_pixels

GRID = {"n_colors": 4, "n_shapes": 3, "draws": 10, "renders": 3, "widths": (16,)}  # 66 scenes, 18 swap pairs
SURE = ("r2.objects", "swap.mlp.heldout_objects", "swap.product.heldout_objects")  # above chance even on this grid


def test_every_object_covers_the_same_pixels_and_a_swap_the_same_share_of_each_colour():
    rng = np.random.default_rng(0)
    for size in (64, 128):
        for shapes in (("triangle", "circle"), ("square", "triangle")):
            objs = placed(rng, [("red", shapes[0]), ("blue", shapes[1])])
            assert [int(mask(o, size).sum()) for o in objs] == [target_pixels(size)] * 2
            swapped = [objs[0].__class__(**{**o.__dict__, "color": c}) for o, c in zip(objs, ("blue", "red"))]
            shares = [controls.colour_shares(picture(side, size))[:8] for side in (objs, swapped)]
            assert np.array_equal(*shares)  # the same pixels of red and of blue on both sides


def test_the_controls_read_a_picture_and_a_caption_back_into_their_objects():
    pairs, scenes, captions = world_scenes(8, 3)
    for pair, scene, caption in list(zip(pairs, scenes, captions))[::7]:
        assert sorted(controls.read_scene(picture(scene.objects, 128))) == sorted(pair)
        assert sorted(controls.read_caption(caption)) == sorted(pair)


@pytest.mark.slow
@pytest.mark.parametrize("control", controls.NEGATIVE, ids=lambda c: c.__name__)
def test_a_control_without_binding_reads_at_chance_on_every_reading(control, monkeypatch):
    quick_probes(monkeypatch, 150)
    found = binding_readings(control(), **GRID)
    assert len(found) == 22
    for name, entry in found.items():
        assert entry["reading"] != "above chance" and entry["null"]["p_adjusted"] > 0.05, (name, entry)


@pytest.mark.slow
def test_the_ground_truth_control_reads_above_chance(monkeypatch):
    quick_probes(monkeypatch, 150)
    found = binding_readings(controls.GroundTruth(), **GRID)
    for kind in ("image", "text"):
        for name in controls.BINDING:
            entry = found[f"{name}.{kind}"]
            if name in SURE:
                assert entry["reading"] == "above chance", (name, kind, entry)
            else:  # 11 test scenes and 10 flipped tables: above its null, not always past Holm's correction
                assert entry["value"] > entry["null"]["range"][1] and entry["null"]["p"] < 0.05, (name, kind, entry)
        assert found[f"swap.additive.heldout_objects.{kind}"]["null"]["p"] == 1.0  # blind to swaps by its form
