"""The "Where the model looks" view: its figure (two maps, a titled colour bar, tokens shaded by share), its cache,
and its handler on the embedded model, a random ViT and a random ResNet (which the page compares with too)."""

import html
import json
import re

import numpy as np
import open_clip
import pytest
from conftest import TINY

from explorer import world
from explorer.engine import Engine
from explorer.explain import looks
from explorer.figures import viz_maps
from explorer.images.inputs import InputError
from explorer.ui import looks_tab

RIGHT, WRONG = "a red square and a blue circle", "a blue square and a red circle"


SCENE = world.Scene((world.WorldObject("red", "square", "large", 0.27, 0.3),
                     world.WorldObject("blue", "circle", "large", 0.72, 0.7)))


def scene():
    return SCENE.render(128)


def panel(caption, peak_at, tokens=("a", "red", "square"), shares=(0.1, 0.2, 0.7)):
    heat = np.zeros((40, 60), dtype=np.float32)
    heat[peak_at[1], peak_at[0]] = 2.0
    return looks.Panel(caption, caption, heat, peak_at, tokens, np.array(shares), 0.3)


def test_the_figure_shows_both_maps_on_one_titled_scale_and_shades_tokens_by_share():
    from PIL import Image

    image = Image.new("RGB", (60, 40), (128, 128, 128))
    shown = looks.Looks((panel("a red square", (5, 5)), panel("a blue square", (50, 30))), looks.EXPLAINER, "rollout",
                      "relevance to the cosine (rollout)", looks.reading(looks.EXPLAINER), ())
    figs = viz_maps.maps_figures(image, shown, side=120)
    pictures = [t for fig in figs for t in fig.data if t.type == "image"]
    assert len(pictures) == 2 and pictures[0].source != pictures[1].source  # each caption's own map
    assert [fig.layout.title.text.split(":")[0] for fig in figs] == ["A", "B"]  # each titled with its caption
    bars = [[t for t in fig.data if t.type == "scatter" and t.marker.showscale] for fig in figs]
    assert all(len(b) == 1 and "relevance to the cosine (rollout)" in b[0].marker.colorbar.title.text for b in bars)
    assert {(b[0].marker.cmin, b[0].marker.cmax) for b in bars} == {(0.0, 2.0)}  # one scale, from none to the peak
    points = [(t.x[0], t.y[0]) for fig in figs for t in fig.data if t.type == "scatter" and t.name == "where it points"]
    assert points == [(10, 10), (100, 60)]  # each map's peak, on the picture scaled by 2
    row = viz_maps.token_row(("a", "red", "square"), np.array([0.1, 0.2, 0.7]))
    alphas = [float(a) for a in re.findall(r"rgba\(255, 127, 14, ([\d.]+)\)", row)]
    assert alphas == [pytest.approx(0.14), pytest.approx(0.29), 1.0] and "70%" in row
    assert "&lt;b&gt;" in viz_maps.token_row(("<b>",), np.array([1.0]))  # a token is text, never markup


def test_a_panel_without_a_map_says_why():
    from PIL import Image

    image = Image.new("RGB", (60, 40), (128, 128, 128))
    missing = looks.Panel("a dog", "a dog", None, None, ("a", "dog"), np.array([0.5, 0.5]), 0.2, "no trained weights")
    shown = looks.Looks((panel("a cat", (5, 5)), missing), "tflocal", "rollout", "attention", "", ())
    with_map, without = viz_maps.maps_figures(image, shown, side=60)
    said = without.layout.annotations[0]
    assert "No map: no trained weights" in said.text.replace("<br>", " ") and not with_map.layout.annotations
    assert said.x > without.layout.xaxis.range[1] / 2  # over the blank map, the picture on the left in view


@pytest.fixture(scope="module")
def page(embedded, tmp_path_factory):
    """The page's engine, the main tab's upload (a world scene's file) and its comparison of RIGHT and WRONG."""
    from explorer.images.inputs import read_image_kept

    engine = Engine(embedded)
    path = tmp_path_factory.mktemp("looks") / "scene.png"
    scene().save(path)
    image, _ = read_image_kept(path)  # the object the main tab compares, as the view reads it
    return engine, str(path), (image, engine.analyze(image, RIGHT, WRONG))


def draw(engine, path, result, explainer=None, segment=None, source=looks.EXPLAINER, a=RIGHT, b=WRONG):
    """The tab's outputs: note, explainer menu, segment menu, A's figure, B's figure, tokens, reading."""
    return looks_tab.draw(engine, path, a, b, engine.default_choice, result, explainer, segment, source)


def pictures(figs) -> list:
    """The image traces of A's and B's figures."""
    return [t for fig in figs for t in fig.data if t.type == "image"]


def test_the_view_on_the_embedded_model_finds_each_segment_on_its_object(page):
    note, explainers, segments, *figs, tokens, reading = draw(*page)
    assert [n for _, n in explainers["choices"]] == ["rollout", "grad-eclip", "legrad"]
    assert explainers["value"] == "rollout"
    assert [v for _, v in segments["choices"]] == [looks.WHOLE, 0, 1] and segments["value"] == looks.WHOLE
    assert "Random weights" not in note and "How to read it" in reading
    assert len(pictures(figs)) == 2 and "square" in tokens
    masks = SCENE.masks(128)
    for segment in (0, 1):  # A's "a red square", "a blue circle"; B's swapped pairs, absent from the image
        figs = draw(*page, "rollout", segment)[3:5]
        (ax, ay), (bx, by) = (map(round, (t.x[0] / 2.5, t.y[0] / 2.5)) for fig in figs for t in fig.data
                              if t.name == "where it points")  # the 128-pixel image is shown at 320
        assert masks[segment][ay, ax]  # A's segment points at its own object
        assert masks[0][by, bx] or masks[1][by, bx]  # B's at an object sharing its colour or its shape (the swap probe
        # measures which), not at the background


def test_each_method_map_is_one_click_away_for_the_same_segment(page):
    engine, _, (image, analysis) = page
    crops = looks.looks(engine.encoder, analysis.state, analysis.captions, analysis.scores, "rollout", 0, "sgi")
    evidence = analysis.scores["sgi"][0].evidence
    x0, y0, x1, y1 = evidence.regions[evidence.matches[0].crop].box  # the crop SGI chose for A's first segment
    assert crops.panels[0].map[y0:y1, x0:x1].all() and crops.panels[0].map.sum() == (x1 - x0) * (y1 - y0)
    for panel, score in zip(crops.panels, analysis.scores["sgi"]):  # titled with the crop's cosine, the heat map's
        match = score.evidence.matches[0]
        assert panel.said == f"{looks.source_label('sgi')}: cosine {match.similarity:.3f}"
        assert panel.said in html.unescape(viz_maps._title("A", panel).replace("<br>", " "))
    for source in ("tflocal", "powerclip"):
        shown = looks.looks(engine.encoder, analysis.state, analysis.captions, analysis.scores, "rollout", 1, source)
        assert all(p.map is not None and p.map.shape == (128, 128) and p.map.max() > 0 for p in shown.panels)
        assert shown.notes == () and shown.scale_title == looks.scale_title(source)
    whole = looks.looks(engine.encoder, analysis.state, analysis.captions, analysis.scores, "rollout", looks.WHOLE, "sgi")
    assert all(p.map is None and "pick a segment" in p.missing for p in whole.panels)


def test_a_method_map_needs_the_pages_comparison_of_these_captions(page):
    engine, path, result = page
    note, *_, fig_a, fig_b, _, _ = draw(*page, "rollout", 0, "sgi", b="a red circle and a blue square")
    assert "read from the page's comparison" in note and "compare them on the first tab" in note
    assert all(len(f.layout.annotations) == 1 and "No map" in f.layout.annotations[0].text for f in (fig_a, fig_b))
    # said over the blank map, on the right half of the figure: the picture on the left stays in view
    assert all(f.layout.annotations[0].x > f.layout.xaxis.range[1] / 2 for f in (fig_a, fig_b))
    assert not any(f.layout.annotations for f in draw(*page, "rollout", 0, "sgi")[3:5])  # the compared captions


def test_explanations_are_kept_per_image_caption_and_explainer(page, monkeypatch):
    engine, _, (image, analysis) = page
    first = looks.explanations(engine.encoder, "grad-eclip", image, list(analysis.captions))
    calls = []
    real = looks.get_explainer
    monkeypatch.setattr(looks, "get_explainer", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    again = looks.explanations(engine.encoder, "grad-eclip", image.copy(), list(analysis.captions))
    assert calls == [] and all(a is b for a, b in zip(first, again))  # the same pixels: nothing computed again
    edited = looks.explanations(engine.encoder, "grad-eclip", image, [analysis.captions[0], "a red circle"])
    assert calls == ["grad-eclip"] and edited[0] is first[0]  # a caption edit explains the edited caption alone


def test_the_view_refuses_what_the_menus_do_not_offer(page):
    engine, path, (image, analysis) = page
    note, menu, *_ = draw(*page, "gradcam")
    assert "gradcam does not apply to this model's image tower: showing rollout" in note and menu["value"] == "rollout"
    with pytest.raises(InputError, match="does not apply to world-clip"):
        looks.looks(engine.encoder, analysis.state, analysis.captions, analysis.scores, "gradcam")
    with pytest.raises(InputError, match="map source must be one of"):
        looks.looks(engine.encoder, analysis.state, analysis.captions, analysis.scores, "rollout", 0, "sam")
    assert "The segment must be a number" in draw(*page, "rollout", "second")[0]
    assert "Caption B is empty" in draw(*page, b=" ")[0]
    assert looks_tab.draw(engine, None, RIGHT, WRONG, engine.default_choice, None, None, None, "sgi")[0] == \
        looks_tab.WAITING


@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory):
    """A tiny ViT (TINY) and a tiny ModifiedResNet (open_clip's RN50 design), registered with open_clip."""
    folder = tmp_path_factory.mktemp("looks-configs")
    resnet = {**TINY, "vision_cfg": {"image_size": 64, "layers": [1, 1, 1, 1], "width": 8}}
    for name, config in (("world-clip-looks-vit", TINY), ("world-clip-looks-resnet", resnet)):
        (folder / f"{name}.json").write_text(json.dumps(config))
    open_clip.add_model_config(folder)
    return "world-clip-looks-vit", "world-clip-looks-resnet"


def test_a_random_vit_gets_its_explainers_says_its_weights_are_random_and_tflocal_untrained(page, tiny_models):
    import torch

    from explorer.models.encoders import DualEncoder

    torch.manual_seed(0)
    engine = Engine(DualEncoder(tiny_models[0], pretrained=None, device="cpu"))
    _, path, (image, _) = page
    result = (image, engine.analyze(image, RIGHT, WRONG))
    note, menu, _, *figs, tokens, _ = draw(engine, path, result, None, 0)
    assert [n for _, n in menu["choices"]] == ["rollout", "grad-eclip", "legrad"]
    assert "Random weights: world-clip-looks-vit / random weights was loaded with random weights" in note
    assert len(pictures(figs)) == 2 and "square" in tokens
    note, *_, fig_a, fig_b, _, _ = draw(engine, path, result, None, 0, "tflocal")
    assert "TFLocal's attention is not available" in note and "no trained weights" in note
    assert all(len(f.layout.annotations) == 1 and "No map" in f.layout.annotations[0].text for f in (fig_a, fig_b))


def test_a_resnet_is_compared_on_the_page_and_gets_grad_cam_and_the_methods_maps(page, tiny_models):
    """A ResNet tower's patch tokens are its last feature map read through its attention pool's value and output
    projections (``DualEncoder._image_features``), so the page compares with it; the view gives Grad-CAM's maps, the
    weights said to be random, with or without a comparison, and SGI's crop for the same segment."""
    import torch

    from explorer.models.encoders import DualEncoder

    torch.manual_seed(0)
    engine = Engine(DualEncoder(tiny_models[1], pretrained=None, device="cpu"))
    _, path, (image, _) = page
    note, menu, segments, *figs, tokens, _ = draw(engine, path, None, None, 1)
    assert [n for _, n in menu["choices"]] == ["gradcam"] and segments["value"] == 1
    assert "Random weights" in note and "Something went wrong" not in note
    shown = pictures(figs)
    assert len(shown) == 2 and shown[0].source != shown[1].source and "circle" in tokens
    analysis = engine.analyze(image, RIGHT, WRONG)
    assert {"global", "sgi", "powerclip"} <= set(analysis.scores)
    note, *_, fig_a, fig_b, _, _ = draw(engine, path, (image, analysis), "gradcam", 1, "sgi")
    assert "not available" not in note and len(pictures((fig_a, fig_b))) == 2
