"""The per-image state (``explorer/core/image_state.py``): one object holds what the encoder and every method compute of an
image, one bounded store keeps the states, and a caption edit finds its image's work there."""

from dataclasses import dataclass

import numpy as np
import pytest
import torch
from PIL import Image

from explorer import world
from explorer.core import image_state
from explorer.core.cache import LRUCache
from explorer.core.image_state import ImageState, ImageStates
from explorer.methods import REGISTRY, get_method


@dataclass(frozen=True)
class Work:
    """A kind of work kept of an image, as a method declares one."""

    value: object


def picture(seed: int, side: int = 32) -> Image.Image:
    return Image.fromarray(np.random.default_rng(seed).integers(0, 255, (side, side, 3), dtype=np.uint8))


def test_an_image_has_one_state_found_by_its_pixels_and_a_state_is_its_own():
    store = ImageStates(size=8, max_mb=64)
    image = picture(0)
    state = store.of(image)
    assert store.of(image.copy()) is state  # same pixels, another object
    assert store.of(state) is state
    image.putpixel((0, 0), (1, 2, 3))
    assert store.of(image) is not state  # the key follows the pixels


def test_the_store_keeps_its_count_and_its_memory_least_recently_used_first_out():
    store = ImageStates(size=3, max_mb=64)
    states = [store.of(picture(i)) for i in range(3)]
    store.of(picture(0))  # used again: picture 1 is now the oldest
    store.of(picture(3))
    assert len(store) == 3 and store.of(picture(0)) is states[0] and store.of(picture(2)) is states[2]
    assert store.of(picture(1)) is not states[1]  # it was evicted, and comes back empty

    small = ImageStates(size=100, max_mb=1)
    big = small.of(picture(10))
    big.keep(Work(torch.zeros(2**20 // 4 * 3 // 4, dtype=torch.float32)), "encoder#1")  # 0.75 MiB
    assert 0.75 * 2**20 < big.nbytes < 0.76 * 2**20
    small.of(picture(11)).keep(Work(torch.zeros(2**20 // 4 // 2)), "encoder#1")  # 0.5 MiB: together over 1 MiB
    small.of(picture(12))
    assert len(small) == 2 and small.nbytes <= 2**20  # the oldest, heaviest went first


def test_a_state_weighs_each_array_once_however_many_values_hold_it():
    state = ImageState(picture(0, side=10), "k")
    assert state.nbytes == 10 * 10 * 3
    mask = np.ones((100, 100), dtype=bool)
    state.keep(Work([mask]), "segments:24")
    state.by_caption("sgi#1", ["a red square"], lambda new: [{"evidence": (mask, mask)}])  # the same regions again
    assert state.nbytes == 300 + mask.nbytes
    kept = state.keep(Work("another"), "segments:24")  # a value kept by its owner stays
    assert kept.value == [mask] and state.find(Work, "segments:24") is kept and state.find(Work) is None


def test_methods_and_encoders_keep_no_image_caches_or_hooks_of_their_own(embedded):
    assert not hasattr(embedded, "image_hooks") and not hasattr(embedded, "_images")
    for name in REGISTRY:
        method = get_method(name, embedded)
        caches = [k for k, v in vars(method).items() if isinstance(v, (LRUCache, dict))]
        assert not caches, (name, caches)


def test_a_caption_edit_reuses_the_images_state_and_scores_the_edited_caption_alone(embedded, monkeypatch):
    from explorer.engine import Engine
    from explorer.methods.powerclip import method as powerset_method
    from explorer.models.modeling.alignment import AlignmentTransformer

    engine = Engine(embedded)
    image = world.random_scene(np.random.default_rng(8), world.seen_combos(), 2).render(embedded.image_size)
    first = engine.analyze(image, "a red square and a blue circle", "a blue square and a red circle")
    calls = []
    for owner, name in ((embedded, "_encode_image_batch"), (embedded, "embed_pixels"),
                        (powerset_method, "region_groups"), (AlignmentTransformer, "image_keys")):
        real = getattr(owner, name)
        monkeypatch.setattr(owner, name, lambda *a, real=real, name=name, **k: calls.append(name) or real(*a, **k))
    edited = engine.analyze(image.copy(), "a red square and a blue circle", "a blue square and a red star")
    assert calls == []  # no image tower, no SGI views, no PowerCLIP groups, no TFLocal keys: all in the state
    for name, (a, _) in first.scores.items():
        assert edited.scores[name][0] is a  # caption A's score read back, not computed again
    state = image_state.of(image)
    kept = lambda m: state.by_caption(m.key, ["a blue square and a red star"], lambda new: pytest.fail("again"))  # noqa
    assert all(kept(m)[0] is edited.scores[name][1] for name, m in engine.methods.items())


CAPTIONS_LIKE_WORK = ("keys", "regions", "masks", "groups", "features", "global", "sgi", "tflocal", "powerclip",
                      "\U0001F436 and \U0001F431", "a red square")


def test_any_caption_is_scored_even_one_named_like_a_methods_work_or_a_method(embedded):
    """A caption is data in the state, never a key: ``keys`` once read TFLocal's stored keys back as its score."""
    from explorer.api import Explorer

    notebook = Explorer()
    image = world.Scene((world.WorldObject("red", "square", "large", 0.3, 0.3),)).render(128)
    for a, b in zip(CAPTIONS_LIKE_WORK, CAPTIONS_LIKE_WORK[1:] + CAPTIONS_LIKE_WORK[:1]):
        table = notebook.analyze(image, a, b).table()
        assert len(table) == len(notebook.engine.methods) and table["A"].map(float).notna().all(), (a, b)


def test_a_method_keeps_the_dataclass_it_declares_once_per_image():
    @dataclass(frozen=True)
    class Other:
        value: int

    state, made = image_state.ImageState(Image.new("RGB", (4, 4)), "k"), []
    first = state.kept(Work, lambda: made.append(1) or Work(3), "m#1")
    assert state.kept(Work, lambda: Work(4), "m#1") is first and made == [1] and state.has(Work, "m#1")
    assert state.kept(Work, lambda: Work(5), "m#2").value == 5  # another owner keeps its own
    assert state.kept(Other, lambda: Other(6), "m#1").value == 6  # and an owner one of each kind it declares
    assert not state.has(Work) and state.kept(Work, lambda: Work(7)).value == 7  # the image's own (owner None)
    with pytest.raises(TypeError, match="declares a Work"):
        state.kept(Work, lambda: Other(8), "m#3")
