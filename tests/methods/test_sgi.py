"""Structure-guided inference (``explorer/methods/sgi.py``): it finds each object and prefers the right caption, its
batched path equals the naive one, its prompts read like captions, and it runs on a registry model."""

import numpy as np
import pytest
from PIL import Image
from skimage import data

from explorer import world
from explorer.core import image_state
from explorer.core.image_state import image_key
from explorer.images.regions import crop_image, fill_color, multiscale_crops
from explorer.language.prompts import segment_prompts
from explorer.methods import get_method
from explorer.methods.sgi.method import RegionFeatures, cuts, object_boxes


def known_scene():
    a = world.WorldObject("red", "square", "large", 0.27, 0.3)
    b = world.WorldObject("blue", "circle", "large", 0.72, 0.7)
    return world.Scene((a, b)), "a red square and a blue circle", "a blue square and a red circle"


def covered(box, obj):
    """The fraction of the object's box inside ``box``."""
    w = max(0, min(box[2], obj[2]) - max(box[0], obj[0]))
    h = max(0, min(box[3], obj[3]) - max(box[1], obj[1]))
    return w * h / ((obj[2] - obj[0]) * (obj[3] - obj[1]))


def test_sgi_finds_each_object_and_prefers_the_right_caption(embedded):
    scene, right, wrong = known_scene()
    image = scene.render(128)
    sgi = get_method("sgi", embedded)
    good, bad = sgi.score(image, [right, wrong])
    assert good.value > bad.value
    ev = good.evidence
    assert [m.segment.text for m in ev.matches] == ["red square", "blue circle"]
    assert ev.matrix.shape == (2, len(ev.regions))
    boxes = scene.pixel_boxes(128)
    for m, obj_box, other in zip(ev.matches, boxes, boxes[::-1]):
        best = ev.regions[m.crop].box
        assert covered(best, obj_box) >= 0.5 > covered(best, other), (m.segment.text, best, obj_box)
        whole = [k for k, r in enumerate(ev.regions) if r.source != "piece"]  # an object's segment reads no piece
        assert m.similarity == pytest.approx(ev.matrix[ev.matches.index(m), whole].max())
    assert good.value == pytest.approx(np.mean([m.similarity for m in ev.matches]))


def test_batched_and_naive_paths_agree_and_crops_are_encoded_once(embedded, monkeypatch):
    scene, right, wrong = known_scene()
    image = scene.render(128)
    sgi = get_method("sgi", embedded)
    calls = []
    original = embedded.embed_pixels
    monkeypatch.setattr(embedded, "embed_pixels", lambda x, *a, **k: calls.append(len(x)) or original(x, *a, **k))
    batched = sgi.score(image, [right, wrong])
    sgi.score(image, ["a red square", "a red circle and a blue square"])  # a caption edit: no image work
    n = len(batched[0].evidence.regions)
    distinct = len({image_key(v) for v in sgi.crop_images(image, sgi.regions(image))})
    assert calls == [distinct] and distinct < n  # crops that see the same pixels are encoded once
    naive = sgi.score_naive(image, [right, wrong])
    assert calls[1:] == [1] * (2 * n)  # one by one, for each caption again
    for a, b in zip(batched, naive):
        assert a.value == pytest.approx(b.value, abs=1e-5)
        for i, (ma, mb) in enumerate(zip(a.evidence.matches, b.evidence.matches)):
            # the same crop, or two crops the segment scores alike to float precision (a tie that the last bit of
            # a batched or a one-by-one matmul breaks either way: AVX2 kernels do, AVX512 ones did not)
            tie = a.evidence.matrix[i, [ma.crop, mb.crop]]
            assert ma.crop == mb.crop or tie[0] == pytest.approx(tie[1], abs=1e-5), (ma.crop, mb.crop, tie)


def test_segment_prompts_read_like_captions():
    prompts = [p for _, p in segment_prompts("a large red square to the left of a small blue circle")]
    assert prompts == ["a large red square", "a small blue circle", "a square to the left of a circle"]
    assert [p for _, p in segment_prompts("red")] == ["red"]


def test_a_relation_prompt_fits_its_article_to_the_word_left_after_the_modifiers():
    prompts = [p for _, p in segment_prompts("an orange star on a grey floor")]
    assert prompts == ["an orange star", "a grey floor", "a star on a floor"]
    prompts = [p for _, p in segment_prompts("a circle above an orange square")]
    assert prompts[-1] == "a circle above a square"


def test_sgi_runs_on_a_registry_model(random_vit):
    scene, right, wrong = known_scene()
    scores = get_method("sgi", random_vit, scales=(1.0, 0.5)).score(scene.render(224), [right, wrong])
    regions = scores[0].evidence.regions
    assert np.isfinite([s.value for s in scores]).all()
    windows = [r.box for r in regions if r.source == "object"]  # a window fits each object
    assert len(windows) == 2 and regions[0].source == "image"
    for obj in scene.objects:
        cx, cy = obj.cx * 224, obj.cy * 224
        assert sum(b[0] <= cx < b[2] and b[1] <= cy < b[3] for b in windows) == 1
    objects = object_boxes(image_state.of(scene.render(224)))
    crops = {r.source: [x.box for x in regions if x.source == r.source] for r in regions}
    assert len(crops["crop"]) + len(crops["piece"]) == len(multiscale_crops(224, 224, (1.0, 0.5))) - 1
    assert all(not cuts(box, objects) for box in crops["crop"]) and all(cuts(box, objects) for box in crops["piece"])
    for match in scores[0].evidence.matches:  # an object's segment never matches a piece, a relation's no window
        assert regions[match.crop].source != ("piece" if match.segment.kind == "object" else "object")


@pytest.mark.parametrize("mode", ["mask", "resize"])
def test_distinct_views_are_exactly_the_distinct_pixels(embedded, mode):
    scene_image = known_scene()[0].render(128)
    photo = Image.fromarray(data.astronaut()).resize((96, 96))
    sgi = get_method("sgi", embedded, crop_mode=mode)
    for image in (scene_image, photo):
        regions = sgi.regions(image)
        boxes, rows = sgi.distinct_boxes(image, regions, fill_color(image))
        pixels = [image_key(v) for v in sgi.crop_images(image, regions)]
        views = [image_key(crop_image(image, b, mode, fill_color(image))) for b in boxes]
        assert len(views) == len(set(pixels))  # nothing merged that differs, nothing encoded twice
        assert [views[r] for r in rows] == pixels  # each region reads its own view


@pytest.mark.parametrize("mode", ["mask", "resize"])
@pytest.mark.parametrize("which", ["embedded", "random_vit"])
def test_tensor_views_score_as_the_pil_views(which, mode, request):
    """The device path's scores equal those of open_clip's own PIL preprocess of every view, within 1e-4 (fp32)."""
    encoder = request.getfixturevalue(which)
    scales, stride = ((1.0, 0.75, 0.5, 0.35, 0.25), 0.5) if which == "embedded" else ((1.0, 0.5), 1.0)  # ViT: 5, for time
    scene, right, wrong = known_scene()
    photo = Image.fromarray(data.astronaut()).resize((300, 200))
    for image in (scene.render(encoder.image_size), photo):
        sgi = get_method("sgi", encoder, crop_mode=mode, scales=scales, stride=stride)
        tensor = sgi.score(image, [right, wrong])
        regions = sgi.regions(image)
        reference = RegionFeatures(tuple(regions), encoder.embed_images(sgi.crop_images(image, regions)))
        for got, caption in zip(tensor, [right, wrong]):
            want = sgi._score(reference, caption)
            assert np.abs(got.evidence.matrix - want.evidence.matrix).max() < 1e-4
            assert got.value == pytest.approx(want.value, abs=1e-4)
