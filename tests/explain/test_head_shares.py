"""Each head's share of the margin and TextSpan's texts, on the embedded model."""

import numpy as np
import pytest
import torch

from explorer import world
from explorer.core import image_state
from explorer.explain import head_shares, textspan


@pytest.fixture(scope="module")
def item():
    return world.swap_items("val-id", "attribute", 1)[0]


def test_the_shares_add_up_to_the_margin_and_the_split_is_kept(embedded, item, monkeypatch):
    image = item.images[0].render(embedded.image_size)
    found = head_shares.head_shares(embedded, image, item.captions)
    unit = torch.stack([f.embedding for f in embedded.encode_texts(list(item.captions), companions=False)])
    cosines = (embedded.embed_images([image]) @ unit.T)[0]
    assert found.cosines == pytest.approx(cosines.tolist(), abs=1e-5)
    assert np.allclose(found.parts.sum(0), found.embedding, atol=1e-4)
    assert found.shares.sum() + found.mlps.sum() + found.stem == pytest.approx(found.margin, abs=1e-5)
    assert np.allclose(found.maps.sum((2, 3)) + found.class_token, found.shares, atol=1e-6)
    assert abs(found.shares[found.top(1)[0]]) == pytest.approx(np.abs(found.shares).max())
    monkeypatch.setattr(head_shares, "decompose", lambda *a: pytest.fail("the split was not kept"))
    again = head_shares.head_shares(embedded, image_state.of(image), item.captions[::-1])
    assert again.margin == pytest.approx(-found.margin, abs=1e-6)


def test_text_span_finds_the_texts_the_data_is_made_of():
    rng = np.random.default_rng(0)
    texts = rng.normal(size=(20, 16))
    texts /= np.linalg.norm(texts, axis=1, keepdims=True)
    data = 3 * rng.normal(size=(60, 1)) * texts[3] + rng.normal(size=(60, 1)) * texts[7] + 0.01 * rng.normal(
        size=(60, 16))
    chosen, shares = textspan.text_span(data, texts, iters=3)
    assert chosen[:2] == [3, 7]
    assert shares[0] > shares[1] > shares[2] >= 0 and sum(shares) <= 1 + 1e-9


def test_head_texts_are_kept_per_model_and_pool(embedded, monkeypatch):
    monkeypatch.setattr(textspan, "PER_KIND", 1)
    textspan._KEPT.clear()
    found = textspan.head_texts(embedded)
    blocks = embedded.model.visual.transformer.resblocks
    assert len(found.texts) == len(blocks) and len(found.texts[0]) == blocks[0].attn.num_heads
    assert all(t in found.pool for row in found.texts for head in row for t in head)
    assert found.images == 2 * len(world.KINDS)
    assert textspan.head_texts(embedded) is found
    mine = textspan.head_texts(embedded, ["a striped zebra"])
    assert mine is not found and "a striped zebra" in mine.pool


def test_the_panels_reading_of_one_head(embedded, item, monkeypatch):
    from explorer.explain import head_view

    monkeypatch.setattr(textspan, "PER_KIND", 1)
    textspan._KEPT.clear()
    state = image_state.of(item.images[1].render(embedded.image_size))
    view = head_view.head_view(embedded, state, item.captions, "1.2")
    assert view.head == (1, 2) and np.array_equal(view.map, view.shares.maps[1, 2])
    assert len(view.texts) == len(view.explained) == textspan.TEXTS
    assert head_view.parse_head("9.9", view.shares) == view.shares.top(1)[0]  # a head this model lacks: the top one
    assert [v for _, v in head_view.head_menu(view.shares)][0] == "{}.{}".format(*view.shares.top(1)[0])
    own = head_shares.image_parts(embedded, state).head_totals[1, 2]
    assert head_view.ablated_margin(embedded, state, item.captions, (1, 2), own) == pytest.approx(
        view.shares.margin, abs=1e-6)  # replaced by itself: the margin stays
    assert f"{view.ablated_margin:+.4f}" in head_view.ablation_sentence(view)
    assert "heads-embedded.json" in head_view.recorded_sentence(embedded.label)
