"""The world's varied looks (``world.looks``), the ``style`` split that holds some of them out, and the ``drawn-*``
splits drawn by another renderer (``world.drawings``)."""

import numpy as np
import pytest
from scipy import ndimage

from explorer import world
from explorer.world.drawings import DRAWN_BACKGROUNDS
from explorer.world.looks import MIN_CONTRAST, Look, Proportions, hue_held_out, style_look
from explorer.world.sampling import varied_look

COMBOS = world.training_combos(0.75, 16)


def _distance(a, b) -> float:
    return float(np.linalg.norm(np.subtract(a, b)))


def test_training_looks_never_use_the_held_out_hues_or_gradients_and_keep_every_object_visible():
    rng = np.random.default_rng(0)
    looks = []
    for _ in range(1500):
        scene = varied_look(rng, world.random_scene(rng, COMBOS))
        looks.append(scene.look)
        assert all(_distance(paint, scene.look.background) >= MIN_CONTRAST for paint in scene.paints)
        assert all(_distance(paint, world.FILLS[o.color]) <= 18 * 3 ** 0.5 for paint, o in zip(scene.paints, scene.objects))
    assert not any(hue_held_out(look.background) for look in looks)
    assert all(look.gradient_to is None for look in looks)
    greys = [look.background[0] for look in looks if len(set(look.background)) == 1]
    assert min(greys) < 20 and max(greys) > 235, "white through dark"
    assert {look.strokes for look in looks} == {True, False} and {look.smooth for look in looks} == {True, False}
    assert any(look.jpeg for look in looks) and any(look.noise for look in looks) and any(look.tilt for look in looks)
    apexes, depths = [look.proportions.apex for look in looks], [look.proportions.star_depth for look in looks]
    assert min(apexes) < 0.3 and max(apexes) > 0.7 and min(depths) < 0.35 and max(depths) > 0.55, "varied proportions"
    mottled = [look.texture for look in looks if look.texture]
    assert 0.2 < len(mottled) / len(looks) < 0.4 and min(mottled) < 12 and max(mottled) > 26


def test_a_training_batch_draws_the_varied_share_and_captions_them_as_the_worlds_look_would():
    scenes, captions = world.training_batch(np.random.default_rng(4), 400, COMBOS, benchmark_share=0.35, varied=0.5)
    varied = [s.look != Look() for s in scenes]
    assert 0.4 < np.mean(varied) < 0.6
    plain, _ = world.training_batch(np.random.default_rng(4), 400, COMBOS, benchmark_share=0.35)
    assert all(s.look == Look() for s in plain)
    for scene, caption in zip(scenes, captions):
        assert all(o.shape in caption for o in scene.objects)


def test_the_style_split_draws_seen_objects_on_held_out_backgrounds_one_look_per_item():
    seen = world.seen_combos()
    for kind in world.KINDS:
        for item in world.swap_items("style", kind, 15):
            first, second = item.images
            assert first.look == second.look and hue_held_out(first.look.background)
            assert first.look.proportions == Proportions(), "the style split holds backgrounds out, not shapes"
            assert first.look.texture == 0.0, "flat or two-colour backgrounds: its own style, never mottled"
            assert first.look.gradient_to is None or hue_held_out(first.look.gradient_to)
            assert all(o.combo in seen for scene in item.images for o in scene.objects)
    singles = world.single_items("style", 60)
    gradients = [it.images[0].look.gradient_to for it in singles]
    assert any(gradients) and any(g is None for g in gradients)
    assert world.single_items("val-style", 5) != world.single_items("style", 5)


def test_a_tilted_or_line_drawn_scene_is_drawn_where_its_masks_are():
    rng = np.random.default_rng(2)
    for strokes in (False, True):
        scene = world.random_scene(rng, world.ALL_COMBOS, n_objects=2)
        fills = [world.FILLS[o.color] for o in scene.objects]
        scene = world.Scene(scene.objects, look=Look(background=(250, 250, 250) if (15, 15, 15) in fills else (5, 5, 5),
                                                      tilt=12.0, strokes=strokes))
        pixels, masks = np.asarray(scene.render(128)), scene.masks(128)
        for fill, mask in zip(fills, masks):
            painted = (pixels == fill).all(-1)
            assert painted.sum() > 20 and (painted & ~ndimage.binary_dilation(mask)).sum() == 0
            inner = ndimage.binary_erosion(mask, iterations=6)
            assert (painted[inner].mean() < 0.05) if strokes else painted[mask].mean() > 0.95


def test_triangles_and_stars_are_drawn_in_their_looks_proportions_where_their_masks_are():
    def drawn(shape: str, proportions: Proportions) -> tuple[np.ndarray, np.ndarray]:
        scene = world.Scene((world.WorldObject("red", shape, "large", 0.5, 0.5),),
                            look=Look(background=(255, 255, 255), proportions=proportions))
        return (np.asarray(scene.render(128)) == world.FILLS["red"]).all(-1), scene.masks(128)[0]

    leaning, _ = drawn("triangle", Proportions(apex=0.25))
    upright, _ = drawn("triangle", Proportions())
    assert np.nonzero(leaning[np.nonzero(leaning.any(1))[0][0]])[0].mean() < 64 - 10, "the apex moved left"
    assert abs(np.nonzero(upright[np.nonzero(upright.any(1))[0][0]])[0].mean() - 64) < 2
    thin, _ = drawn("star", Proportions(star_depth=0.3))
    fat, _ = drawn("star", Proportions(star_depth=0.62))
    assert thin.sum() < 0.75 * fat.sum()
    small, small_mask = drawn("square", Proportions(fill=0.7))
    whole, _ = drawn("square", Proportions())
    assert 0.4 < small.sum() / whole.sum() < 0.6  # 0.7 squared
    for shape in ("triangle", "star"):
        painted, mask = drawn(shape, Proportions(fill=0.8, apex=0.7, base=0.4, width=0.75, star_depth=0.35, star_turn=20))
        assert (painted == mask).mean() > 0.99


def test_a_mottled_background_varies_smoothly_within_its_texture_of_its_colour():
    look = Look(background=(120, 60, 200), texture=25.0, seed=7)
    pixels = np.asarray(look.canvas(128), dtype=float)
    away = pixels - np.array(look.background)
    assert np.abs(away).max() <= 25.5 and away.std() > 5  # mottled, never further than its texture
    assert (away[..., 0] == away[..., 1]).all() and (away[..., 1] == away[..., 2]).all()  # each channel alike
    assert np.abs(np.diff(pixels, axis=0)).max() <= 3  # smooth: no pixel far from its neighbour
    assert np.asarray(Look(background=(120, 60, 200), texture=25.0, seed=8).canvas(128)).tobytes() != pixels.astype(
        np.uint8).tobytes()  # each seed its own


def test_a_look_renders_at_any_size_with_noise_and_jpeg_deterministically():
    look = Look(background=(20, 40, 200), smooth=True, noise=6.0, jpeg=50, scale=1.7, seed=3)
    scene = world.Scene(world.random_scene(np.random.default_rng(1), world.ALL_COMBOS).objects, look=look)
    a, b = scene.render(128), scene.render(128)
    assert a.size == (128, 128) and a.tobytes() == b.tobytes()
    assert scene.render(224).size == (224, 224)


def test_style_looks_stay_clear_of_their_fills():
    rng = np.random.default_rng(5)
    for _ in range(300):
        fills = [world.FILLS[c] for c in rng.choice(list(world.COLORS), 2, replace=False)]
        look = style_look(rng, fills)
        assert all(_distance(f, look.background) >= MIN_CONTRAST for f in fills)
        assert look.gradient_to is None or all(_distance(f, look.gradient_to) >= MIN_CONTRAST for f in fills)


@pytest.mark.parametrize("name", list(DRAWN_BACKGROUNDS))
def test_drawn_splits_draw_visible_seen_objects_on_their_background(name):
    background = DRAWN_BACKGROUNDS[name]
    items = world.swap_items(f"drawn-{name}", "attribute", 20)
    for item in items:
        for drawing in item.images:
            assert drawing.background == background
            pixels, masks = np.asarray(drawing.render(128)), drawing.masks(128)
            outside = pixels[~ndimage.binary_dilation(masks.any(0), iterations=2)].astype(int)
            assert (np.abs(outside - background).max(-1) <= 3).mean() > 0.99  # bicubic rings at the edges
            for obj, mask in zip(drawing.objects, masks):
                assert _distance(world.FILLS[obj.color], background) >= 60
                inner = ndimage.binary_erosion(mask, iterations=2)
                assert (pixels[inner] == world.FILLS[obj.color]).all(-1).mean() > 0.9
    singles = world.single_items(f"drawn-{name}", 40)
    assert all(it.captions[it.right[0]] == it.images[0].objects[0].phrase() for it in singles)
    assert all(it.images[0].objects[0].combo in world.seen_combos() for it in singles)


def test_training_swap_items_share_one_varied_look_and_draw_none_without_it():
    seen = world.seen_combos()
    items = world.training_swaps(np.random.default_rng(3), 300, seen, varied=0.5)
    varied = [it for it in items if it.images[0].look != Look()]
    assert 0.4 < len(varied) / len(items) < 0.6
    assert all(it.images[0].look == it.images[1].look and not hue_held_out(it.images[0].look.background) for it in varied)
    assert world.training_swaps(np.random.default_rng(3), 50, seen) == world.training_swaps(np.random.default_rng(3), 50,
                                                                                              seen, varied=0.0)
