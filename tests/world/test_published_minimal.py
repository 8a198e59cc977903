"""The world's versions of VisMin, MMVP-VLM and SPEC (``explorer/world/published_minimal.py``): each item's pictures
a minimal change apart and its captions saying what each shows; registered, offered in ``eval --help`` and scored
with the authors' figures."""

import subprocess
import sys

import numpy as np
import pytest

from explorer.eval.accuracy import evaluate, item_outcomes
from explorer.eval.benchmark_registry import BENCHMARKS, load_items
from explorer.methods import get_method
from explorer.world import published_minimal as minimal
from explorer.world.captions import list_caption, relation_word

WORLD_VERSIONS = ("world-vismin", "world-mmvp", "world-spec")


def what_changed(before, after) -> set[str]:
    """What tells the second picture's objects from the first's: one more object, places traded, or the fields of
    the objects that differ."""
    if len(after) != len(before):
        return {"one more"} if after[:len(before)] == before else {"more"}
    if {(o.cx, o.cy) for o in before} == {(o.cx, o.cy) for o in after} and before != after and \
            [(o.cx, o.cy) for o in before] != [(o.cx, o.cy) for o in after]:
        return {"places"}
    return {f"{k}:{n}" for n, (o, p) in enumerate(zip(before, after)) for k in ("color", "shape", "size")
            if getattr(o, k) != getattr(p, k)}


def test_vismin_pairs_differ_by_one_minimal_change():
    items = minimal.vismin_items("id", 3)
    assert [it.kind for it in items] == [k for k in minimal.VISMIN_KINDS for _ in range(3)]
    expected = {"object": {"shape:1"}, "attribute": {"color:0"}, "counting": {"one more"}, "relation": {"places"}}
    for it in items:
        before, after = it.images[0].objects, it.images[1].objects
        assert what_changed(before, after) == expected[it.kind], it.id
        if it.kind != "relation":
            assert it.captions == (list_caption(before), list_caption(after))


@pytest.mark.parametrize("split", ["id", "heldout"])
def test_spec_captions_say_what_each_picture_shows_both_ways(split):
    items = minimal.spec_items(split, 2)
    i2t = [it for it in items if it.info["direction"] == "i2t"]
    for it in i2t:
        objects, own = it.images[0].objects, it.captions[it.right[0]]
        subset = it.kind.removesuffix(" i2t")
        if subset == "relative_spatial":
            assert f" {relation_word(*objects)} " in own
        elif subset == "absolute_size":
            assert own == objects[0].phrase(with_size=True)
        else:  # existence and count: the caption names each object drawn
            assert own == list_caption(list(objects))
        assert len(set(it.captions)) == len(it.captions)
    for it in (it for it in items if it.info["direction"] == "t2i"):
        assert len(it.captions) == 1 and sum(r == 0 for r in it.right) == 1
        twin = next(t for t in i2t if t.kind.split()[0] == it.kind.split()[0]
                    and t.images[0] == it.images[it.right.index(0)])
        assert twin.captions[twin.right[0]] == it.captions[0]  # the caption is its own picture's
    assert {it.kind.split()[0] for it in items} == {"relative_spatial", "absolute_size", "existence", "count"}


def test_world_versions_are_registered_offered_and_shown_in_help():
    for name in WORLD_VERSIONS:
        b = BENCHMARKS[name]
        assert not b.from_files and "idea" in b.citation and load_items(name, limit=2, split="id")
    out = subprocess.run([sys.executable, "-m", "explorer", "eval", "--help"], capture_output=True, text=True,
                         check=True).stdout
    assert all(name in out for name in WORLD_VERSIONS + ("vismin", "mmvp-vlm", "spec"))


def test_world_mmvp_reports_the_pair_accuracy_and_world_spec_both_averages(embedded):
    method = get_method("global", embedded)
    items = load_items("world-mmvp", limit=4, split="id")
    found = [f["global"] for f in item_outcomes([method], items, "world-mmvp")]
    cells = evaluate([method], "world-mmvp", 4, ["id"])["global"]["id"]
    assert set(cells) == set(minimal.MMVP_PATTERNS) | {"all"}
    assert cells["all"]["image"] == pytest.approx(100 * np.mean([o.image for o in found]), abs=0.005)
    spec = evaluate([method], "world-spec", 1, ["id"])["global"]["id"]
    for direction in ("i2t", "t2i"):
        mean = np.mean([c["accuracy"] for k, c in spec.items() if k.endswith(f" {direction}")])
        assert spec[direction]["accuracy"] == pytest.approx(mean, abs=0.01) and spec[direction]["kinds"] == 4
    assert "all" not in spec  # SPEC reports the two directions side by side, no figure over both
