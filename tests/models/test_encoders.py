"""The dual encoder (``explorer/models/encoders.py``): patch tokens and dimensions, open_clip's blocks, registry models with
random weights, token-to-word alignment, batching, the content-keyed caches and a clear error for an unreachable hub."""

import time

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from PIL import Image

from explorer import world
from explorer.models.checkpoints import EMBEDDED_CHECKPOINT
from explorer.models.encoders import DualEncoder
from explorer.models.model_errors import ModelUnavailable


def scene_image(seed=0, size=128):
    return world.random_scene(np.random.default_rng(seed), world.seen_combos(), 2).render(size)


def reference_patch_tokens(model, image_tensor):
    """Patch tokens by another route: a hook on the last block, then ln_post and proj by hand."""
    captured = {}
    hook = model.visual.transformer.resblocks[-1].register_forward_hook(lambda m, i, o: captured.update(x=o))
    with torch.no_grad():
        pooled = model.encode_image(image_tensor)
    hook.remove()
    x = model.visual.ln_post(captured["x"])
    return x[:, 1:] @ model.visual.proj, x[:, 0] @ model.visual.proj, pooled


@pytest.mark.parametrize("which", ["embedded", "random_vit"])
def test_patch_tokens_are_the_projected_grid(which, request):
    enc = request.getfixturevalue(which)
    image = scene_image()
    feats = enc.encode_image(image)
    gh, gw = feats.grid
    joint = enc.encode_text("a").embedding.shape[0]  # the joint embedding space's width, from the text side
    assert feats.patches.shape == (gh * gw, joint) and joint == enc.model.visual.output_dim
    assert (gh, gw) == (enc.image_size // enc.model.visual.patch_size[0],) * 2
    x = enc.preprocess(image).unsqueeze(0)
    patches, cls, pooled = reference_patch_tokens(enc.model, x)
    torch.testing.assert_close(feats.patches, F.normalize(patches[0], dim=-1), atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(feats.embedding, F.normalize(pooled[0], dim=-1), atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(F.normalize(cls[0], dim=-1), feats.embedding, atol=1e-5, rtol=1e-4)


def test_embedded_grid_and_dimensions(embedded):
    feats = embedded.encode_image(scene_image())
    assert feats.grid == (8, 8) and feats.patches.shape == (64, 128) and feats.embedding.shape == (128,)
    assert torch.allclose(feats.patches.norm(dim=-1), torch.ones(64), atol=1e-5)


def test_embedded_blocks_answer_as_open_clips_default_blocks(embedded):
    """The embedded config asks for open_clip's custom blocks (attention through scaled_dot_product_attention,
    faster at bf16 on the CPU); the shipped weights load into its default blocks too, and both give the same
    features in fp32."""
    import copy

    import open_clip

    assert type(embedded.model.transformer.resblocks[0]).__name__ == "CustomResidualAttentionBlock"
    assert type(embedded.model.visual.transformer.resblocks[0]).__name__ == "CustomResidualAttentionBlock"
    cfg = copy.deepcopy(open_clip.get_model_config("world-clip"))
    for tower in ("vision_cfg", "text_cfg"):
        cfg[tower].pop("block_type")
    default = open_clip.CLIP(**cfg).eval()
    default.load_state_dict(embedded.model.state_dict())  # strict: the same parameter names
    assert type(default.transformer.resblocks[0]).__name__ == "ResidualAttentionBlock"
    ids = embedded.tokenizer(["a black dog and a white cat", "a white dog"])
    pixels = embedded.preprocess(scene_image()).unsqueeze(0)
    with torch.no_grad():
        torch.testing.assert_close(embedded.model.encode_text(ids), default.encode_text(ids), atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(embedded.model.encode_image(pixels), default.encode_image(pixels), atol=1e-5,
                                   rtol=1e-5)


def test_registry_model_with_random_weights(random_vit):
    assert random_vit.label == "ViT-B-32 / random weights"
    feats = random_vit.encode_image(scene_image())
    assert feats.grid == (7, 7) and feats.patches.shape == (49, 512)


def test_token_features_align_to_words(embedded):
    caption = "a black dog and a white cat"
    t = embedded.encode_text(caption)
    assert t.words == tuple(caption.split())
    assert t.token_text == t.words and t.token_word == tuple(range(7))
    punct = embedded.encode_text("Dogs, cats!")
    assert punct.token_text == ("dogs", ",", "cats", "!") and punct.token_word == (0, 0, 1, 1)
    # the tokens are the text tower's own per-position outputs, projected
    model = embedded.model
    ids = embedded.tokenizer([caption])
    with torch.no_grad():
        x = model.token_embedding(ids) + model.positional_embedding
        x = model.ln_final(model.transformer(x, attn_mask=model.attn_mask)) @ model.text_projection
    torch.testing.assert_close(t.tokens, F.normalize(x[0, 1:8], dim=-1), atol=1e-5, rtol=1e-4)
    eot = int(ids[0].argmax())
    torch.testing.assert_close(t.embedding, F.normalize(x[0, eot], dim=-1), atol=1e-5, rtol=1e-4)


def test_long_caption_is_truncated_with_a_flag(embedded):
    long = " and ".join(["a red square"] * 20)
    t = embedded.encode_text(long)
    assert t.truncated and len(t.tokens) == embedded.context_length - 2
    assert not embedded.encode_text("a red square").truncated


def test_batches_give_the_same_features_as_one_by_one(embedded):
    images = [scene_image(s) for s in range(5)]
    batch = embedded.embed_images(images, batch_size=2)
    single = torch.cat([embedded.embed_images([im]) for im in images])
    torch.testing.assert_close(batch, single, atol=1e-5, rtol=1e-4)


def test_image_cache_is_keyed_by_content(embedded, monkeypatch):
    calls = []
    original = embedded._encode_image_batch
    monkeypatch.setattr(embedded, "_encode_image_batch", lambda ims: calls.append(len(ims)) or original(ims))
    a = scene_image(11)
    first = embedded.encode_image(a)
    again = embedded.encode_image(Image.fromarray(np.asarray(a).copy()))  # same pixels, new object
    assert calls == [1] and again is first
    other = scene_image(12)
    embedded.encode_images([a, other, other])
    assert calls == [1, 1]


def test_loads_a_local_checkpoint_file(tmp_path, embedded):
    path = tmp_path / "state.pt"
    torch.save({"state_dict": embedded.model.state_dict()}, path)
    enc = DualEncoder("world-clip", checkpoint=path)
    image = scene_image(3)
    torch.testing.assert_close(enc.encode_image(image).embedding, embedded.encode_image(image).embedding)
    assert "state.pt" in enc.label


def test_embedded_default_loads_the_shipped_checkpoint(embedded):
    assert embedded.checkpoint == EMBEDDED_CHECKPOINT and embedded.label == "world-clip (embedded)"
    assert EMBEDDED_CHECKPOINT.stat().st_size < 50 * 2**20


def test_unreachable_pretrained_tag_fails_fast_with_one_sentence():
    start = time.time()
    with pytest.raises(ModelUnavailable) as err:
        DualEncoder("ViT-B-32", pretrained="openai")
    message = str(err.value)
    assert time.time() - start < 10
    assert "ViT-B-32" in message and "openai" in message and "--checkpoint" in message
    assert "\n" not in message and "Traceback" not in message


@pytest.mark.parametrize(
    "kwargs, needle",
    [({"name": "No-Such-Model"}, "Unknown model"), ({"name": "ViT-B-32", "pretrained": "nonsense"}, "not a pretrained tag"),
     ({"name": "world-clip", "checkpoint": "/nonexistent/weights.safetensors"}, "No checkpoint file")],
)
def test_other_load_failures_are_clear(kwargs, needle):
    with pytest.raises(ModelUnavailable, match=needle):
        DualEncoder(**kwargs)


def test_lru_cache_keeps_the_most_recently_used():
    from explorer.core.cache import LRUCache

    cache = LRUCache(size=2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "a" is now the most recent
    cache.put("c", 3)
    assert "b" not in cache and "a" in cache and len(cache) == 2
    assert cache.get_or_compute("a", lambda: 99) == 1 and cache.get_or_compute("d", lambda: 4) == 4


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device: none here or in CI; run where one is lent")
def test_on_cuda_the_shipped_model_answers_as_on_the_cpu(embedded):
    """Autocast on CUDA (bf16/fp16) moves the embeddings a little, not the answers: held-out top-1 within a point."""
    gpu = DualEncoder(device="cuda")
    assert gpu.device.startswith("cuda") and next(gpu.model.parameters()).is_cuda
    items = world.single_items("heldout", 500)
    images = [it.images[0].render(gpu.image_size) for it in items]
    labels = torch.tensor([it.right[0] for it in items])
    captions = list(items[0].captions)

    def top1(enc: DualEncoder) -> tuple[torch.Tensor, float]:
        img = enc.embed_images(images)
        return img, 100.0 * ((img @ enc.embed_texts(captions).T).argmax(1) == labels).float().mean().item()

    (cpu_img, cpu_top1), (gpu_img, gpu_top1) = top1(embedded), top1(gpu)
    assert (cpu_img * gpu_img).sum(1).min() > 0.98
    assert abs(gpu_top1 - cpu_top1) <= 1.0 and gpu_top1 >= 95
    close = dict(atol=0.05, rtol=0.05)  # bf16 patch and token features against fp32 ones, all unit vectors
    torch.testing.assert_close(gpu.encode_image(images[0]).patches, embedded.encode_image(images[0]).patches, **close)
    torch.testing.assert_close(gpu.encode_text(captions[0]).tokens, embedded.encode_text(captions[0]).tokens, **close)


def test_a_page_analysis_hashes_its_image_once(embedded, monkeypatch):
    from explorer.engine import Engine

    engine = Engine(embedded)
    image = scene_image(4)
    hashed = []
    tobytes = Image.Image.tobytes
    monkeypatch.setattr(Image.Image, "tobytes", lambda self, *a, **k: hashed.append(self) or tobytes(self, *a, **k))
    engine.analyze(image, "a red square and a blue circle", "a blue square and a red circle")
    assert sum(im is image for im in hashed) == 1
