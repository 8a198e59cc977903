"""The synthetic world (``explorer/world/``): deterministic scenes, masks, coverage and held-out objects, training
captions, swap items of each kind, the splits' rules and relation words."""

import numpy as np
import pytest
from scipy import ndimage

from explorer import world


def scene_pixels(scene, size=128):
    return np.asarray(scene.render(size)), scene.masks(size)


def test_generation_is_deterministic():
    a = world.swap_items("heldout", "attribute", 20)
    b = world.swap_items("heldout", "attribute", 20)
    assert a == b
    assert [np.asarray(x.images[0].render()).tobytes() for x in a[:3]] == [
        np.asarray(x.images[0].render()).tobytes() for x in b[:3]
    ]
    assert world.swap_items("heldout", "attribute", 20, seed=1) != a
    r1, r2 = np.random.default_rng([0, 5]), np.random.default_rng([0, 5])
    assert world.training_batch(r1, 16, world.seen_combos()) == world.training_batch(r2, 16, world.seen_combos())


@pytest.mark.parametrize("style", ["plain", "shift"])
def test_each_mask_has_its_objects_colour_and_masks_do_not_overlap(rng, style):
    for _ in range(30):
        scene = world.random_scene(rng, world.ALL_COMBOS, style=style)
        pixels, masks = scene_pixels(scene)
        assert masks.sum(axis=0).max() == 1, "objects overlap"
        for obj, mask in zip(scene.objects, masks):
            inner = ndimage.binary_erosion(mask, iterations=3) if style == "shift" else mask  # past the outline
            assert inner.sum() > 20
            assert (pixels[inner] == world.COLORS[obj.color]).all()
            x0, y0, x1, y1 = obj.box
            ys, xs = np.nonzero(mask)
            assert xs.min() >= x0 * 128 - 1 and xs.max() <= x1 * 128 + 1
            assert ys.min() >= y0 * 128 - 1 and ys.max() <= y1 * 128 + 1
        background = ~masks.any(axis=0)
        assert (pixels[background] == world.BACKGROUND).all()


def test_coverage_keeps_every_colour_and_shape_and_holds_out_the_rest():
    for coverage in (0.25, 0.5, 0.75, 1.0):
        seen = world.seen_combos(coverage)
        assert len(seen) == round(coverage * len(world.ALL_COMBOS))
        assert {c for c, _ in seen} == set(world.COLORS)
        assert {s for _, s in seen} == set(world.SHAPES)
        assert seen | world.heldout_combos(coverage) == set(world.ALL_COMBOS)
    assert world.seen_combos(0.5) <= world.seen_combos(0.75)
    with pytest.raises(ValueError):
        world.seen_combos(0)


def test_training_captions_name_objects_in_random_order_not_left_to_right():
    rng = np.random.default_rng(0)
    leftmost_first = total = 0
    for _ in range(600):
        scene = world.random_scene(rng, world.seen_combos(), n_objects=2)
        caption = world.training_caption(scene, rng)
        if " and " not in caption:
            continue
        first = caption.split(" and ")[0]
        left = min(scene.objects, key=lambda o: o.cx)
        leftmost_first += first.endswith(f"{left.color} {left.shape}")
        total += 1
    assert total > 300
    assert 0.4 < leftmost_first / total < 0.6


def test_training_never_shows_heldout_objects_and_batches_have_unique_captions():
    rng = np.random.default_rng(3)
    held = world.heldout_combos()
    scenes, captions = world.training_batch(rng, 256, world.seen_combos())
    assert len(set(captions)) == 256
    assert not any(o.combo in held for s in scenes for o in s.objects)
    assert {len(s.objects) for s in scenes} == {1, 2, 3, 4}


@pytest.mark.parametrize("kind", world.KINDS)
def test_swap_items_exchange_exactly_what_their_kind_says(kind):
    for item in world.swap_items("id", kind, 30):
        (a, b), (a2, b2) = item.images[0].objects, item.images[1].objects
        c0, c1 = item.captions
        assert c0 != c1 and sorted(c0.split()) == sorted(c1.split())
        if kind == "attribute":
            assert (a2.color, b2.color, a2.shape, b2.shape) == (b.color, a.color, a.shape, b.shape)
        elif kind == "object":
            assert (a2.shape, b2.shape, a2.color, b2.color) == (b.shape, a.shape, a.color, b.color)
        elif kind == "size":
            assert {a.size, b.size} == {"small", "large"} and (a2.size, b2.size) == (b.size, a.size)
        else:
            assert (a2.cx, a2.cy, b2.cx, b2.cy) == (b.cx, b.cy, a.cx, a.cy)
            assert c0 == world.relation_caption(a, b)
            assert c1 == world.relation_caption(b2, a2)
        for scene, caption in zip(item.images, item.captions):
            for obj in scene.objects:
                assert obj.phrase(with_size=kind == "size") in caption


def test_splits_follow_their_rules():
    seen = world.seen_combos()
    for item in world.swap_items("id", "attribute", 50):
        assert all(o.combo in seen for sc in item.images for o in sc.objects)
        assert all(sc.style == "plain" for sc in item.images)
    for item in world.swap_items("heldout", "attribute", 50):
        assert all(any(o.combo not in seen for o in sc.objects) for sc in item.images)
    for item in world.swap_items("shift", "object", 20):
        assert all(sc.style == "shift" for sc in item.images)
    singles = world.single_items("heldout", 50)
    assert all(it.images[0].objects[0].combo not in seen for it in singles)
    assert all(it.captions[it.right[0]] == it.images[0].objects[0].phrase() for it in singles)
    assert len(set(world.single_captions())) == len(world.ALL_COMBOS)


def test_relation_words_follow_positions():
    a = world.WorldObject("red", "square", "small", 0.2, 0.5)
    b = world.WorldObject("blue", "circle", "small", 0.8, 0.45)
    assert world.relation_caption(a, b) == "a red square to the left of a blue circle"
    assert world.relation_caption(b, a) == "a blue circle to the right of a red square"
    c = world.WorldObject("orange", "star", "large", 0.5, 0.9)
    assert world.relation_caption(c, a).startswith("an orange star below")


def test_partial_captions_name_one_concept_of_some_objects():
    rng = np.random.default_rng(5)
    scenes, captions = world.training_batch(rng, 200, world.seen_combos(), partial=0.5)
    shapes = set(world.SHAPES)
    bare_shape = color_only = 0
    for scene, caption in zip(scenes, captions):
        for phrase in caption.split(" and "):
            words = phrase.split()
            if " of " in phrase or "above" in words or "below" in words:
                break  # relation captions always name both concepts
            bare_shape += words[-1] in shapes and not set(words) & set(world.COLORS)
            color_only += words[-1] == "shape"
    assert bare_shape > 20 and color_only > 20
    plain = world.training_batch(np.random.default_rng(5), 50, world.seen_combos())[1]
    assert not any(c.endswith(" shape") or " shape and" in c for c in plain)


def test_grey_scenes_are_black_and_white_and_captioned_without_colours():
    scenes, captions = world.training_batch(np.random.default_rng(3), 120, world.seen_combos(), grey=0.3)
    grey = [(s, c) for s, c in zip(scenes, captions) if s.style == "grey"]
    assert 10 < len(grey) < 60
    for scene, caption in grey:
        pixels = np.asarray(scene.render(64)).astype(int)
        assert (pixels[..., 0] == pixels[..., 1]).all() and (pixels[..., 1] == pixels[..., 2]).all()
        assert not set(caption.split()) & set(world.COLORS)
        assert all(o.shape in caption for o in scene.objects)
    coloured = [c for s, c in zip(scenes, captions) if s.style == "plain"]
    assert all(set(c.split()) & set(world.COLORS) for c in coloured)
    off = world.training_batch(np.random.default_rng(3), 120, world.seen_combos())
    assert off == world.training_batch(np.random.default_rng(3), 120, world.seen_combos(), grey=0.0)


def test_unnamed_scenes_are_painted_off_the_palette_and_captioned_without_colours():
    scenes, captions = world.training_batch(np.random.default_rng(4), 120, world.seen_combos(), unnamed=0.3)
    unnamed = [(s, c) for s, c in zip(scenes, captions) if s.style == "unnamed"]
    assert 10 < len(unnamed) < 60
    anchors = np.array([*world.COLORS.values(), world.BACKGROUND], dtype=float)
    for scene, caption in unnamed:
        assert len(scene.paints) == len(scene.objects)
        pixels = np.asarray(scene.render(64)).astype(float)
        for paint, mask in zip(scene.paints, scene.masks(64)):
            assert np.linalg.norm(anchors - paint, axis=1).min() >= world.PAINT_MIN_DISTANCE
            assert (pixels[mask] == paint).all(axis=1).mean() > 0.9  # the object is drawn in its paint
        assert not set(caption.split()) & set(world.COLORS)
        assert all(o.shape in caption for o in scene.objects)
    assert all(not s.paints for s, _ in zip(scenes, captions) if s.style == "plain")
    off = world.training_batch(np.random.default_rng(4), 120, world.seen_combos(), grey=0.3)
    assert off == world.training_batch(np.random.default_rng(4), 120, world.seen_combos(), grey=0.3, unnamed=0.0)


def test_extra_concepts_widen_training_but_never_show_heldout_objects():
    plain, wide = world.training_combos(), world.training_combos(extra=len(world.EXTRA_SHAPES))
    assert plain == world.seen_combos() and plain < wide
    assert not wide & world.heldout_combos()
    for color in world.COLORS:  # every benchmark colour meets every extra shape, and vice versa
        assert {(color, s) for s in world.EXTRA_SHAPES} <= wide
    for shape in world.SHAPES:
        assert {(c, shape) for c in world.EXTRA_COLORS} <= wide
    anchors = np.array([*world.COLORS.values(), world.BACKGROUND], dtype=float)
    for rgb in world.EXTRA_COLORS.values():
        assert np.linalg.norm(anchors - rgb, axis=1).min() >= world.EXTRA_MIN_DISTANCE
    extras = np.array(list(world.EXTRA_COLORS.values()), dtype=float)
    apart = np.linalg.norm(extras[:, None] - extras[None], axis=2) + np.eye(len(extras)) * 1e3
    assert apart.min() > 40  # no two extra colours pass for each other either
    assert world.training_combos(extra=2) < wide and not world.training_combos(extra=2) & {("pink", "arrow")}
    with pytest.raises(ValueError, match="extra must be"):
        world.training_combos(extra=len(world.EXTRA_SHAPES) + 1)


def test_extra_shapes_are_drawn_in_their_colour_and_differ_from_every_other_shape():
    masks = {}
    for shape in world.SHAPES + world.EXTRA_SHAPES:
        scene = world.Scene((world.WorldObject("pink", shape, "large", 0.5, 0.5),))
        mask = scene.masks(96)[0]
        pixels = np.asarray(scene.render(96))
        assert mask.sum() > 300 and (pixels[mask] == world.EXTRA_COLORS["pink"]).all()
        masks[shape] = mask
    names = list(masks)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            iou = (masks[a] & masks[b]).sum() / (masks[a] | masks[b]).sum()
            assert iou < 0.85, (a, b)  # no pair closer than the benchmark's circle and square (0.83)


def test_benchmark_share_sets_how_often_an_object_is_one_of_the_benchmarks_own():
    combos = world.training_combos(extra=16)
    ours = set(world.ALL_COMBOS)
    for share in (0.2, 0.5):
        scenes, _ = world.training_batch(np.random.default_rng(1), 1500, combos, benchmark_share=share)
        objects = [o.combo for sc in scenes for o in sc.objects]
        # a batch redraws repeated captions, which single benchmark objects make most: a little under the share
        assert share - 0.05 < np.mean([c in ours for c in objects]) <= share
        assert not set(objects) & world.heldout_combos()
    uniform, _ = world.training_batch(np.random.default_rng(1), 1500, combos)
    assert np.mean([o.combo in ours for sc in uniform for o in sc.objects]) < 0.1  # 24 of 472 objects
    with pytest.raises(ValueError, match="needs both"):
        world.training_batch(np.random.default_rng(1), 4, world.seen_combos(), benchmark_share=0.5)
    with pytest.raises(ValueError, match="must be in"):
        world.training_batch(np.random.default_rng(1), 4, combos, benchmark_share=1.0)


def test_validation_splits_hold_the_same_kinds_of_items_from_a_stream_of_their_own():
    seen = world.seen_combos()
    for split in world.SPLITS:
        val, test = (world.swap_items(name, "attribute", 30) for name in (world.VAL_PREFIX + split, split))
        assert [it.split for it in val] == [world.VAL_PREFIX + split] * 30
        assert not {it.captions for it in val} >= {it.captions for it in test}  # other items, not the test's
        assert all(a != b for a, b in zip(val, test))
        for item in val:  # the split's own rule: seen objects for id and shift, a held-out one in each image else
            combos = [o.combo for scene in item.images for o in scene.objects]
            if split == "heldout":
                assert any(c not in seen for c in combos[:2]) and any(c not in seen for c in combos[2:])
            else:
                assert all(c in seen for c in combos)
        assert [it.images[0].style for it in val] == [it.images[0].style for it in test]
    val_single = world.single_items("val-heldout", 50)
    assert all(it.images[0].objects[0].combo not in seen for it in val_single)
    assert [it.images[0] for it in val_single] != [it.images[0] for it in world.single_items("heldout", 50)]
    assert world.swap_items("val-id", "size", 5) == world.swap_items("val-id", "size", 5)  # deterministic
    with pytest.raises(ValueError, match="val-heldout"):
        world.swap_items("val-nothing", "size", 1)
