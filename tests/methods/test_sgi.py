"""Structure-guided inference (``explorer/methods/sgi.py``): it finds each object and prefers the right caption, its
batched path equals the naive one, its prompts read like captions, and it runs on a registry model."""

import numpy as np
import pytest
import torch
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


def _titled_slide_with_a_page_number() -> tuple[Image.Image, list[tuple[int, int, int, int]]]:
    """A 1600 x 900 slide: a title and a rule under it, a red square and a blue circle, a footer and a page number
    in the corner below the circle (in the quarter of the slide that holds the circle); the shapes' boxes."""
    from PIL import ImageDraw, ImageFont

    try:
        title, small = ImageFont.truetype("DejaVuSans-Bold.ttf", 60), ImageFont.truetype("DejaVuSans.ttf", 26)
    except OSError:
        pytest.skip("no DejaVu font here to write a slide's title with")
    slide = Image.new("RGB", (1600, 900), "white")
    draw = ImageDraw.Draw(slide)
    draw.text((120, 45), "Which shape is red?", fill=(20, 20, 20), font=title)
    draw.line((80, 144, 1520, 144), fill=world.COLORS["blue"], width=3)
    boxes = [(380, 330, 620, 570), (1010, 470, 1250, 710)]
    draw.rectangle(boxes[0], fill=world.COLORS["red"])
    draw.ellipse(boxes[1], fill=world.COLORS["blue"])
    draw.text((80, 837), "Year 2 science", fill=(110, 110, 110), font=small)
    draw.text((1488, 837), "12", fill=(110, 110, 110), font=small)
    return slide, boxes


def test_on_a_titled_slide_each_object_matches_a_crop_of_it_alone_not_a_quarter_with_a_page_number(embedded):
    """SGI's crops are cut from the slide's objects alone (``cut_from``): the title, the rule and the page number are
    not shapes, so a quarter of the slide holding the circle and the page number is the circle's crop, and each
    object's match is a window around it, not a region many times its size."""
    from scipy import ndimage

    from explorer.methods.picture import prepare
    from explorer.methods.sgi.method import OBJECT_EDGE, cut_from

    slide, boxes = _titled_slide_with_a_page_number()
    state, picture = prepare(slide, "whole")
    assert len(picture.objects) == 2 and picture.text  # the title and the footer are read as text
    fill = fill_color(state.image)
    cut = np.asarray(cut_from(state, fill))
    shown = (cut != np.asarray(fill, np.uint8)).any(axis=-1)
    near = ndimage.binary_dilation(picture.mask(), iterations=OBJECT_EDGE)
    assert shown.any() and not (shown & ~near).any()  # the objects and their edges alone
    for x0, y0, x1, y1 in picture.text:
        assert not shown[y0:y1, x0:x1].any()  # the title and the footer are paper there
    sgi = get_method("sgi", embedded)
    features = sgi.region_features(state)
    regions = features.regions
    circle = next(k for k, r in enumerate(regions) if r.source == "object" and
                  picture.fit.box_to_picture(r.box)[0] > 800)
    holding = [k for k, r in enumerate(regions) if r.source == "crop" and _holds_only(r.box, picture.boxes(), 1)]
    number = [k for k in holding if picture.fit.box_to_picture(regions[k].box)[3] >= 870]  # the page number too
    assert number  # a crop holding the circle and the page number, as a quarter of the slide does
    for k in holding:  # each is the circle's own crop: one embedding
        assert torch.equal(features.embeddings[k], features.embeddings[circle]), regions[k]
    good, bad = sgi.score(state, ["a red square and a blue circle", "a blue square and a red circle"])
    assert good.value > bad.value
    for match, (x0, y0, x1, y1) in zip(good.evidence.matches, boxes):
        box = picture.fit.box_to_picture(good.evidence.regions[match.crop].box)
        assert box[0] <= (x0 + x1) / 2 < box[2] and box[1] <= (y0 + y1) / 2 < box[3], (match.prompt, box)
        assert (box[2] - box[0]) * (box[3] - box[1]) <= 3 * (x1 - x0) * (y1 - y0), (match.prompt, box)


def _holds_only(box, objects, k) -> bool:
    """Whether ``box`` holds all of object ``k`` and nothing of the others."""
    def inside(o):
        return box[0] <= o[0] and box[1] <= o[1] and o[2] <= box[2] and o[3] <= box[3]

    def meets(o):
        return min(box[2], o[2]) > max(box[0], o[0]) and min(box[3], o[3]) > max(box[1], o[1])

    return inside(objects[k]) and not any(meets(o) for j, o in enumerate(objects) if j != k)
