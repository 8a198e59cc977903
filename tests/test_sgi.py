import numpy as np
import pytest

from explorer import world
from explorer.encoders import image_key
from explorer.methods import get_method
from explorer.methods.sgi import segment_prompts


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
        assert m.similarity == pytest.approx(ev.matrix.max(axis=1)[ev.matches.index(m)])
    assert good.value == pytest.approx(np.mean([m.similarity for m in ev.matches]))


def test_batched_and_naive_paths_agree_and_crops_are_encoded_once(embedded, monkeypatch):
    scene, right, wrong = known_scene()
    image = scene.render(128)
    sgi = get_method("sgi", embedded)
    calls = []
    original = embedded.embed_images
    monkeypatch.setattr(embedded, "embed_images", lambda ims, **kw: calls.append(len(ims)) or original(ims, **kw))
    batched = sgi.score(image, [right, wrong])
    sgi.score(image, ["a red square", "a red circle and a blue square"])  # a caption edit: no image work
    n = len(batched[0].evidence.regions)
    distinct = len({image_key(v) for v in sgi.views(image, sgi.regions(image))})
    assert calls == [distinct] and distinct < n  # crops that see the same pixels are encoded once
    naive = sgi.score_naive(image, [right, wrong])
    assert calls[1:] == [1] * (2 * n)  # one by one, for each caption again
    for a, b in zip(batched, naive):
        assert a.value == pytest.approx(b.value, abs=1e-5)
        assert [m.crop for m in a.evidence.matches] == [m.crop for m in b.evidence.matches]


def test_segment_prompts_read_like_captions():
    prompts = [p for _, p in segment_prompts("a large red square to the left of a small blue circle")]
    assert prompts == ["a large red square", "a small blue circle", "a square to the left of a circle"]
    assert [p for _, p in segment_prompts("red")] == ["red"]


def test_sgi_runs_on_a_registry_model(random_vit):
    scene, right, wrong = known_scene()
    scores = get_method("sgi", random_vit, scales=(1.0, 0.5)).score(scene.render(224), [right, wrong])
    assert len(scores[0].evidence.regions) == 10 and np.isfinite([s.value for s in scores]).all()


@pytest.mark.parametrize("mode", ["mask", "resize"])
def test_distinct_views_are_exactly_the_distinct_pixels(embedded, mode):
    from skimage import data
    from PIL import Image

    scene_image = known_scene()[0].render(128)
    photo = Image.fromarray(data.astronaut()).resize((96, 96))
    sgi = get_method("sgi", embedded, crop_mode=mode)
    for image in (scene_image, photo):
        regions = sgi.regions(image)
        views, rows = sgi.distinct_views(image, regions)
        pixels = [image_key(v) for v in sgi.views(image, regions)]
        assert len(views) == len(set(pixels))  # nothing merged that differs, nothing encoded twice
        assert [image_key(views[r]) for r in rows] == pixels  # each region reads its own view
