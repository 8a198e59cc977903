"""explorer/explain/interactions.py and interaction_binding.py: token x patch interactions of the cosine (exCLIP's),
and which object a colour-shape span binds to, judged by the world's masks."""

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from explorer import world
from explorer.explain import interactions as module
from explorer.explain.interaction_binding import CHANCE, FIGURES, WORDS, density, judge, paired, patch_cells, summary
from explorer.explain.interaction_record import markdown, recorded
from explorer.explain.interactions import Interactions, fractions, image_side, interactions, words_in

ROOT = Path(__file__).parents[2]


@pytest.fixture(scope="module")
def swap_item():
    return world.swap_items("id", "attribute", 1)[0]


@pytest.fixture(scope="module")
def found(embedded, swap_item):
    image = swap_item.images[0].render(embedded.image_size)
    return interactions(embedded, image, swap_item.captions)


def test_one_row_per_token_one_map_per_patch_and_the_models_cosine(embedded, swap_item, found):
    image = swap_item.images[0].render(embedded.image_size)
    cosines = (embedded.embed_images([image]) @ embedded.embed_texts(list(swap_item.captions)).T)[0]
    for inter, cosine in zip(found, cosines):
        ids = embedded.tokenizer([inter.caption])[0]
        assert inter.values.shape == (int(ids.argmax()) + 1, *embedded.grid)  # start token .. end token
        assert abs(inter.cosine - float(cosine)) < 1e-4
        assert [inter.words[w] for w in inter.token_word] == list(inter.tokens)  # world words are one token each
        assert np.isfinite(inter.values).all() and np.abs(inter.values).max() > 0


def test_a_span_is_the_sum_of_its_words_rows(found):
    inter = found[0]  # "a red square and a blue circle"
    chars = (inter.caption.index("red"), inter.caption.index("square") + len("square"))
    assert words_in(inter.caption, chars) == [1, 2]
    rows = [p for p, w in zip(inter.positions, inter.token_word) if w in (1, 2)]
    assert np.allclose(inter.span_map(chars), inter.values[rows].sum(0))
    whole = np.ones(inter.values.shape[1:])
    assert np.allclose(inter.word_values(whole).sum(), inter.values[list(inter.positions)].sum())
    with pytest.raises(ValueError, match="no token"):
        inter.words_map([40])


def test_the_interpolation_runs_from_the_input_down_to_a_tenth():
    assert torch.allclose(fractions(10), torch.linspace(1, 0.1, 10), atol=1e-6)


def _synthetic(caption: str, picture, size: int, grid, toward: dict[str, np.ndarray]) -> Interactions:
    """Interactions whose every word puts its mass on the mask ``toward[word]`` (patch shares), else nowhere."""
    words = caption.split()
    values = np.stack([np.zeros(grid)] + [toward.get(w, np.zeros(grid)) for w in words] + [np.zeros(grid)])
    return Interactions(caption, 0.5, values, tuple(words), tuple(range(1, len(words) + 1)),
                        tuple(range(len(words))), tuple(words))


def test_the_reading_follows_the_mass_onto_the_right_object_or_the_colours(swap_item):
    picture, size, grid, box = swap_item.images[0], 128, (8, 8), (0, 0, 128, 128)
    cells = {o.combo: patch_cells(m, grid, box) for o, m in zip(picture.objects, picture.masks(size))}
    (c1, s1), (c2, s2) = cells
    true = " and ".join(f"a {c} {s}" for c, s in cells)  # "a red square and a blue circle"
    on_own = {c1: cells[(c1, s1)], s1: cells[(c1, s1)], c2: cells[(c2, s2)], s2: cells[(c2, s2)]}
    assert judge(_synthetic(true, picture, size, grid, on_own), picture, size, grid, box) == {
        "right_object": [1, 1], "colour_word": [1, 1], "shape_word": [1, 1]}
    on_other = {c1: cells[(c2, s2)], s1: cells[(c2, s2)], c2: cells[(c1, s1)], s2: cells[(c1, s1)]}
    assert judge(_synthetic(true, picture, size, grid, on_other), picture, size, grid, box) == {
        "right_object": [0, 0], "colour_word": [0, 0], "shape_word": [0, 0]}
    grounded = {c1: 3 * cells[(c1, s1)], s1: cells[(c2, s2)], c2: 3 * cells[(c2, s2)], s2: cells[(c1, s1)]}
    assert judge(_synthetic(true, picture, size, grid, grounded), picture, size, grid, box) == {
        "right_object": [1, 1], "colour_word": [1, 1], "shape_word": [0, 0]}  # the colour word alone finds it
    swapped = f"a {c1} {s2} and a {c2} {s1}"
    by_colour = {c1: 3 * cells[(c1, s1)], s2: cells[(c2, s2)], c2: 3 * cells[(c2, s2)], s1: cells[(c1, s1)]}
    assert judge(_synthetic(swapped, picture, size, grid, by_colour), picture, size, grid, box) == \
        {"colour_wins": [1, 1]}
    by_shape = {c1: cells[(c1, s1)], s2: 3 * cells[(c2, s2)], c2: cells[(c2, s2)], s1: 3 * cells[(c1, s1)]}
    assert judge(_synthetic(swapped, picture, size, grid, by_shape), picture, size, grid, box) == \
        {"colour_wins": [0, 0]}


def test_a_model_that_puts_every_word_in_the_same_places_reads_exactly_chance():
    """No binding: every word's row the same map (any map), on the true and the swapped caption of several items;
    each picture's two spans then split one right and one wrong, one colour and one shape: 50% to the span."""
    grid, box, rng = (8, 8), (0, 0, 128, 128), np.random.default_rng(0)
    items = []
    for item in world.swap_items("id", "attribute", 4) + world.swap_items("heldout", "object", 4):
        verdicts: dict[str, list[float]] = {}
        for picture in item.images:
            same = rng.random(grid)
            for caption in item.captions:
                words = {w: same for w in caption.split()}
                for name, values in judge(_synthetic(caption, picture, 128, grid, words), picture, 128, grid,
                                          box).items():
                    verdicts.setdefault(name, []).extend(values)
        assert {name: len(v) for name, v in verdicts.items()} == {"right_object": 4, "colour_wins": 4,
                                                                  "colour_word": 4, "shape_word": 4}
        items.append(verdicts)
    out = summary(items)
    for name in ("right_object", "colour_wins"):
        assert out[name]["percent"] == CHANCE and out[name]["ci"] == [CHANCE, CHANCE]
        assert out[name]["reading"] == "at chance" and out[name]["spans"] == 32


def test_the_class_tokens_block_output_alone_gives_the_same_image_side(embedded, swap_item, monkeypatch):
    """The last block's MLP runs on the class token only (the others reach no embedding): the same side, exactly."""
    image = swap_item.images[0].render(embedded.image_size)
    seen = []
    mlp = embedded.model.visual.transformer.resblocks[-1].mlp
    handle = mlp.register_forward_hook(lambda m, args, out: seen.append(out.shape[1]))
    try:
        fast = image_side(embedded, image, steps=2)
        monkeypatch.setattr(module, "pools_first_token", lambda tower: False)
        full = image_side(embedded, image, steps=2)
    finally:
        handle.remove()
    assert seen == [1, embedded.grid[0] * embedded.grid[1] + 1]
    for a, b in zip(fast, full):
        assert torch.allclose(a, b, atol=1e-6)


def test_density_is_per_unit_of_area():
    span = np.ones((2, 2))
    assert density(span, np.array([[1.0, 1.0], [0.0, 0.0]])) == density(span, np.array([[1.0, 0.0], [0.0, 0.0]]))


def test_the_summary_is_a_share_of_spans_per_item_with_an_interval():
    items = [{"right_object": [1, 1]}, {"right_object": [1, 0]}, {"right_object": [0, 0], "colour_wins": [1]}]
    out = summary(items)
    assert out["right_object"]["percent"] == 50.0 and out["right_object"]["spans"] == 6
    assert out["right_object"]["reading"] == "at chance" and out["colour_wins"]["items"] == 1
    assert out["right_object"]["ci"][0] <= 50.0 <= out["right_object"]["ci"][1]
    assert out["right_object"]["per_item"] == [1.0, 0.5, 0.0] and out["colour_wins"]["per_item"] == [None, None, 1.0]


def test_the_span_reads_binding_only_where_it_gains_over_each_of_its_words_alone():
    grounding = [{"right_object": [1, 1], "colour_word": [1, 1], "shape_word": [1, 0]} for _ in range(12)]
    out = summary(grounding)  # the colour word alone finds every object: the span adds nothing to it
    assert out["span_gain"]["over_colour_word"]["points"] == 0.0
    assert out["span_gain"]["over_shape_word"]["points"] == 50.0
    assert out["span_gain"]["reading"].startswith("grounding alone")
    binding = [{"right_object": [1, 1], "colour_word": [1, 0], "shape_word": [0, 1]} for _ in range(12)]
    assert summary(binding)["span_gain"]["reading"] == "binding"
    assert paired([1.0, 0.5, None], [0.5, 0.5, 1.0]) == {"points": 25.0, "ci": [0.0, 50.0], "items": 2}


def test_the_record_matches_the_authors_code():
    record = json.loads((ROOT / "docs/results/explanations/interaction-references.json").read_text())
    assert record["command"].startswith("python scripts/interaction_references.py")
    assert "world-clip (embedded)" in record["figures"]
    doc = (ROOT / "docs" / "explanations.md").read_text()
    for figures in record["figures"].values():
        assert figures["r_min"] >= 0.99 and figures["equal_peaks"] >= 90 and figures["maps"] >= 2
        assert f"{figures['r']:.4f}" in doc


def test_the_binding_records_cover_every_split_on_enough_items_and_the_doc_shows_them():
    records = recorded()
    assert {split for record in records for split in record["results"]["model"]} == set(world.SPLITS)
    for record in records:
        assert record["command"].startswith("python -m explorer interactions") and record["chance"] == CHANCE
        for split, kinds in record["results"]["model"].items():
            for kind, figures in kinds.items():
                for name, entry in ((n, figures[n]) for n in (*FIGURES, *WORDS) if n in figures):
                    null = record["results"]["null"][split][kind][name]
                    assert entry["items"] >= 24 and null["items"] == entry["items"]
                    assert entry["ci"][0] <= entry["percent"] <= entry["ci"][1]
    assert markdown(records) in (ROOT / "docs" / "explanations.md").read_text()


@pytest.mark.slow
def test_a_vit_of_open_clips_standard_blocks_gives_its_interactions_too():
    """nn.MultiheadAttention's fused inference path has no forward mode: it is turned off for the run, and back on."""
    from explorer.models.encoders import DualEncoder

    torch.manual_seed(0)
    vit = DualEncoder(name="ViT-B-32", device="cpu")
    item = world.swap_items("id", "attribute", 1)[0]
    found = interactions(vit, item.images[0].render(224), item.captions[:1])[0]
    assert found.values.shape == (9, 7, 7) and np.isfinite(found.values).all()
    assert torch.backends.mha.get_fastpath_enabled()
