"""TFLocal / TFGlobal / fine-tuning: attention evidence, training, checkpoints, COCO-style data."""

import json

import numpy as np
import pytest
import torch
from PIL import Image
from safetensors.torch import load_file

from explorer import world
from explorer.images.inputs import InputError
from explorer.methods import get_method
from explorer.methods.tflocal.method import load_aligner
from explorer.models.checkpoints import ALIGN_VARIANTS, for_variant
from explorer.models.encoders import DualEncoder
from explorer.models.modeling.alignment import AlignConfig, AlignLayer, AlignmentTransformer, pair_inputs
from explorer.models.modeling.scorers import AlignScorer
from explorer.training.align import AlignTrainConfig, batch_loss, load_pairs, pairs_batch, train_align, world_batch


@pytest.fixture(scope="module")
def tiny_encoder(tiny_model):
    return DualEncoder(tiny_model, pretrained=None, device="cpu")


@pytest.fixture(scope="module")
def item():
    return world.swap_items("id", "attribute", 1)[0]


def test_attention_has_the_patch_grid_and_sums_to_one(embedded, item):
    image = item.images[0].render(embedded.image_size)
    scores = get_method("tflocal", embedded).score(image, list(item.captions))
    for score in scores:
        ev = score.evidence
        layers, heads, tokens, patches = ev.attention.shape
        assert (layers, heads) == (3, 4) and patches == ev.grid[0] * ev.grid[1] == 64
        assert tokens == len(ev.tokens) == len(score.caption.split())  # one token per word in world captions
        np.testing.assert_allclose(ev.attention.sum(-1), 1.0, atol=1e-5)
        assert ev.box == (0, 0, 128, 128)


def test_tflocal_runs_with_random_weights_on_a_registry_model(random_vit, item):
    method = get_method("tflocal", random_vit)
    assert not method.trained and method.model.cfg.dim == 512
    assert 12e6 < method.model.parameter_count < 14e6  # about the published 13M for a ViT-B CLIP
    a, b = method.score(item.images[0].render(224), list(item.captions))
    assert a.evidence.attention.shape[-1] == 49 and np.isfinite([a.value, b.value]).all()


def test_tfglobal_sees_only_the_global_vectors(embedded, item):
    ev = get_method("tfglobal", embedded).score(item.images[0].render(128), [item.captions[0]])[0].evidence
    assert ev.attention.shape == (3, 4, 1, 1) and ev.grid == (1, 1)


def test_training_steps_lower_the_loss_on_a_tiny_batch(embedded):
    torch.manual_seed(0)
    aligner = AlignmentTransformer(AlignConfig(embedded.embed_dim, "local"))
    scorer = AlignScorer(embedded, aligner)
    batch = world_batch(np.random.default_rng(0), 4, world.seen_combos(), embedded.image_size)
    optimizer = torch.optim.AdamW(aligner.parameters(), lr=1e-3)
    losses = []
    for _ in range(30):  # the retrained encoder's features start the head nearer its optimum: 10 steps gave 4%
        loss = batch_loss(scorer(batch), batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[1] < losses[0] and losses[-1] < 0.9 * losses[0]


def test_batch_loss_scores_only_candidates_and_rejects_a_wrong_layout():
    batch = world_batch(np.random.default_rng(1), 3, world.seen_combos(), 32)
    assert batch.candidates.diagonal().all() and batch.candidates[0, 1] and batch.candidates[1, 0]  # hard negatives
    right = torch.where(torch.eye(6, dtype=torch.bool), 10.0, 0.0)
    assert batch_loss(right, batch) < batch_loss(torch.zeros(6, 6), batch)
    wrong = type(batch)(batch.images, batch.captions, [1, 0, 2, 3, 4, 5], batch.candidates)
    with pytest.raises(ValueError, match="caption i must describe image i"):
        batch_loss(right, wrong)


def cfg(variant, steps):
    return AlignTrainConfig(variant=variant, steps=steps, batch_items=2, warmup=1, checkpoint_every=1, threads=1)


@pytest.mark.parametrize("variant", ["local", "finetune"])
def test_checkpoints_load_weights_only_and_a_resumed_run_matches(tmp_path, tiny_model, tiny_encoder, variant):
    def run(name, steps, state_from=None):
        enc = DualEncoder(tiny_model, pretrained=None, device="cpu")
        enc.model.load_state_dict(tiny_encoder.model.state_dict())
        if state_from:
            (tmp_path / name).mkdir()
            state = torch.load(tmp_path / state_from / "last.pt", weights_only=True)
            state["config"]["steps"] = steps
            torch.save(state, tmp_path / name / "last.pt")
        return train_align(cfg(variant, steps), enc, tmp_path / name, tmp_path / f"{name}.safetensors")

    run("full", 3)
    run("part", 2)
    state = torch.load(tmp_path / "part" / "last.pt", weights_only=True)  # plain tensors and numbers only
    assert state["step"] == 2
    run("resumed", 3, state_from="part")
    full, resumed = load_file(tmp_path / "full.safetensors"), load_file(tmp_path / "resumed.safetensors")
    assert full.keys() == resumed.keys() and all(torch.equal(full[k], resumed[k]) for k in full)
    if variant == "local":
        model = load_aligner(tmp_path / "full.safetensors")
        assert model.cfg == AlignConfig(tiny_encoder.embed_dim, "local")


@pytest.mark.parametrize("variant", ["local", "global", "finetune"])
def test_shipped_checkpoints_load_their_weights_and_score_with_them(embedded, variant, item, tmp_path):
    """The method holds the shipped file's tensors (not a default or a fresh draw), and they change its scores."""
    from safetensors.torch import save_file

    path = for_variant(variant).path
    assert path.is_file() and path.with_suffix(".md").is_file(), f"{path} and its model card must be committed"
    record = json.loads(path.with_suffix(".json").read_text())
    assert record["wall_s"] < 30 * 60  # the training budget on 2 CPU cores
    shipped = load_file(path)
    method = get_method(ALIGN_VARIANTS[variant], embedded)
    images = [scene.render(embedded.image_size) for scene in item.images]
    if variant == "finetune":  # the encoder's own weights, tuned: the shipped ones, unlike the frozen encoder's
        tuned, base = method.tuned.model.state_dict(), embedded.model.state_dict()
        assert method.tuned.checkpoint == path and set(shipped) <= set(tuned)
        assert all(torch.equal(tuned[k], shipped[k].to(tuned[k].dtype)) for k in shipped)
        assert sum(not torch.equal(tuned[k], base[k]) for k in shipped) > len(shipped) / 2
        other = get_method("global", embedded)
    else:  # the aligner: the shipped tensors, far from a fresh draw of the same config, which scores otherwise
        state = method.model.state_dict()
        assert method.trained and state.keys() == shipped.keys()
        assert all(torch.equal(state[k], shipped[k]) for k in shipped)
        torch.manual_seed(0)
        fresh = AlignmentTransformer(method.model.cfg).state_dict()
        assert all(not torch.equal(fresh[k], state[k]) for k in state if fresh[k].numel() > 1 and fresh[k].std() > 0)
        save_file(fresh, str(tmp_path / "fresh.safetensors"))
        (tmp_path / "fresh.json").write_text(path.with_suffix(".json").read_text())
        other = get_method(ALIGN_VARIANTS[variant], embedded, checkpoint=str(tmp_path / "fresh.safetensors"))
    for image in images:
        trained = [s.value for s in method.score(image, list(item.captions))]
        assert trained != pytest.approx([s.value for s in other.score(image, list(item.captions))], abs=1e-4)


def test_finetune_needs_weights_for_other_models(random_vit):
    with pytest.raises(ValueError, match="train-align --variant finetune"):
        get_method("finetune", random_vit)


def test_a_mismatched_aligner_is_refused(tmp_path, random_vit, tiny_encoder):
    train_align(cfg("local", 1), tiny_encoder, tmp_path / "run", tmp_path / "tiny.safetensors")
    with pytest.raises(ValueError, match="needs local with width 512"):
        get_method("tflocal", random_vit, checkpoint=str(tmp_path / "tiny.safetensors"))


def test_coco_style_pairs_train_with_proposed_swaps(tmp_path, tiny_encoder):
    for i, color in enumerate(["red", "blue"]):
        Image.new("RGB", (40, 30), color).save(tmp_path / f"{i}.png")
    data = {"images": [{"id": 7, "file_name": "0.png"}, {"id": 8, "file_name": "1.png"}],
            "annotations": [{"image_id": 7, "caption": "a black dog and a white cat"},
                            {"image_id": 8, "caption": "a blue square"}]}
    (tmp_path / "captions.json").write_text(json.dumps(data))
    pairs = load_pairs(tmp_path / "captions.json")
    batch = pairs_batch(np.random.default_rng(0), 2, pairs)
    assert len(batch.images) == 2 and len(batch.captions) == 3  # one caption had a swap to propose
    assert batch.caption_image[2] == -1 and "white dog" in batch.captions[2]
    c = AlignTrainConfig(variant="local", steps=1, batch_items=2, warmup=1, threads=1, data=str(tmp_path / "captions.json"))
    record = train_align(c, tiny_encoder, tmp_path / "run", tmp_path / "coco.safetensors")
    assert np.isfinite(record["final_loss"])


def test_bad_coco_files_get_a_clear_message(tmp_path):
    (tmp_path / "bad.json").write_text('{"images": []}')
    with pytest.raises(InputError, match="COCO-style"):
        load_pairs(tmp_path / "bad.json")
    (tmp_path / "missing.json").write_text(json.dumps({"images": [{"id": 1, "file_name": "no.png"}],
                                                        "annotations": [{"image_id": 1, "caption": "x"}]}))
    with pytest.raises(InputError, match="not found"):
        load_pairs(tmp_path / "missing.json")


def test_pair_inputs_feed_tfglobal_one_token_each():
    img, text, pad, cos = pair_inputs("global", torch.randn(3, 8), torch.randn(3, 5, 8), torch.randn(3, 8), [])
    assert img.shape == (3, 1, 8) and text.shape == (3, 1, 8) and not pad.any() and cos.shape == (3,)


def reference_layer(layer: AlignLayer, text, text_pad, image):
    """The layer through nn.MultiheadAttention's own forward, on the same weights."""
    kv = layer.norm_kv(image)
    attended, weights = layer.cross(layer.norm_q(text), kv, kv, need_weights=True, average_attn_weights=False)
    text = text + attended
    q = layer.norm_self(text)
    text = text + layer.self_attn(q, q, q, key_padding_mask=text_pad, need_weights=False)[0]
    return text + layer.ff(layer.norm_ff(text)), weights


@pytest.mark.parametrize("grad", [False, True])
def test_the_written_out_attention_equals_multihead_attention(grad):
    torch.manual_seed(0)
    layer = AlignLayer(32, 4).eval()
    text, image = torch.randn(3, 7, 32), torch.randn(3, 10, 32)
    text_pad = torch.arange(7)[None] >= torch.tensor([7, 4, 1])[:, None]
    with torch.set_grad_enabled(grad):
        out, weights = layer(text, text_pad, layer.image_keys(image))
        ref_out, ref_weights = reference_layer(layer, text, text_pad, image)
    real = ~text_pad  # PyTorch's inference fast path leaves padded positions' outputs unspecified
    torch.testing.assert_close(out[real], ref_out[real], atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(weights, ref_weights, atol=1e-6, rtol=1e-5)
    if grad:  # training goes through it too
        out[real].sum().backward()
        assert layer.cross.in_proj_weight.grad.abs().sum() > 0 and layer.self_attn.in_proj_weight.grad.abs().sum() > 0


def test_a_caption_edit_reuses_the_aligners_image_side(embedded, item, monkeypatch):
    image = item.images[0].render(embedded.image_size)
    method = get_method("tflocal", embedded)
    made = []
    keys = method.model.image_keys
    monkeypatch.setattr(method.model, "image_keys", lambda image: made.append(image.shape) or keys(image))
    first = method.score(image, list(item.captions))
    edited = method.score(image, [item.captions[0], item.captions[1] + " on a grey floor"])
    assert made == [(1, 64, 128)]  # once for the image, for both captions and the edit
    assert edited[0] is first[0]
    img = embedded.encode_image(image)
    for score in first + edited[1:]:  # the same as the aligner run on the pair alone, its image side made anew
        text = embedded.encode_text(score.caption)
        inputs = pair_inputs("local", img.embedding[None], img.patches[None], text.embedding[None], [text.tokens])
        with torch.inference_mode():
            value, maps = method.model(*inputs)
        assert abs(float(value[0]) - score.value) < 1e-5
        np.testing.assert_allclose(maps[0].numpy(), score.evidence.attention, atol=1e-6)
