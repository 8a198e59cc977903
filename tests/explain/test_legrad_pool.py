"""LeGrad's attention-pool variant (explorer/explain/legrad_pool.py): picked by the tower's structure, its pool written
out equals timm's, and its maps equal the authors' ``compute_legrad_siglip`` transcribed line by line below (their
code pins an open_clip whose timm blocks it rewrites; scripts/legrad_reference.py runs their package itself)."""

import json
import math
import time

import numpy as np
import open_clip
import pytest
import torch
import torch.nn.functional as F
from timm.models import register_model
from timm.models.vision_transformer import VisionTransformer

from explorer import world
from explorer.explain import explainers_for, get_explainer, legrad_pool
from explorer.explain.legrad_pool import NEUTRAL_PROMPT, pool_with_probs
from explorer.models.encoders import DualEncoder

TOWER = dict(img_size=64, patch_size=16, embed_dim=64, depth=3, num_heads=2, class_token=False, global_pool="map")


@register_model
def vit_pool_tiny_test(pretrained: bool = False, **kwargs) -> VisionTransformer:
    """SigLIP's image tower (no class token, a MAP head) at a test's size; ``global_pool`` as open_clip asks."""
    return VisionTransformer(**{**TOWER, "num_classes": kwargs.get("num_classes", 0),
                                "global_pool": kwargs.get("global_pool", "map")})


def config(pool: str) -> dict:
    """An open_clip config as ViT-B-16-SigLIP's (a timm tower, its own pool, no projection) at a test's size."""
    return {"embed_dim": 64, "init_logit_bias": -10, "custom_text": True,
            "vision_cfg": {"image_size": 64, "timm_model_name": "vit_pool_tiny_test", "timm_pool": pool,
                           "timm_proj": "none"},
            "text_cfg": {"context_length": 32, "vocab_size": 49408, "width": 64, "heads": 2, "layers": 1}}


@pytest.fixture(scope="module")
def pooled(tmp_path_factory):
    """The tiny attention-pool model with random weights (seed 0); built in well under a second."""
    folder = tmp_path_factory.mktemp("pool-config")
    for pool in ("map", "avg"):
        (folder / f"pool-vit-tiny-{pool}.json").write_text(json.dumps(config(pool)))
    open_clip.add_model_config(folder)
    torch.manual_seed(0)
    start = time.perf_counter()
    encoder = DualEncoder("pool-vit-tiny-map", pretrained=None)
    assert time.perf_counter() - start < 10
    return encoder


@pytest.fixture(scope="module")
def scene():
    item = world.swap_items("val-id", "attribute", 1)[0]
    return item.images[0].render(64), list(item.captions)


def test_the_structure_picks_the_variant_and_a_tower_with_neither_is_told(pooled):
    assert explainers_for(pooled.model) == ["legrad"]  # the class-token explainers do not read it
    assert get_explainer("legrad", pooled).pooled and get_explainer("legrad", pooled, layer_index=-2).first_block == 1
    plain = DualEncoder("pool-vit-tiny-avg", pretrained=None)  # the same tower, mean-pooled: no attention pool
    with pytest.raises(ValueError, match=r"attention pool \(SigLIP\); .* image tower \(TimmModel\) is neither"):
        get_explainer("legrad", plain)
    with pytest.raises(ValueError, match="layer_index must lie below 3"):
        get_explainer("legrad", pooled, layer_index=3)


def test_the_pool_written_out_is_timms(pooled):
    pool = pooled.model.visual.trunk.attn_pool
    x = torch.randn(2, 16, 64)
    out, probs = pool_with_probs(pool, x)
    with torch.no_grad():
        assert torch.allclose(out, pool(x), atol=1e-5)
    assert probs.shape == (2, 2, 1, 16) and torch.allclose(probs.sum(-1), torch.ones(2, 2, 1))


# ---- the authors' code, transcribed line by line from legrad-torch 1.1 (legrad/utils.py and legrad/wrapper.py):
# the two hooked forwards they bind onto timm's blocks and attention pool, and ``compute_legrad_siglip`` for one text,
# its ``self`` the open_clip model; only its last upsampling (by the patch size) is left out, as the reference does

def hooked_resblock_timm_forward(self, x):
    x = x + self.drop_path1(self.ls1(self.attn(self.norm1(x))))
    self.feat_post_attn = x
    x = x + self.drop_path2(self.ls2(self.mlp(self.norm2(x))))
    self.feat_post_mlp = x
    return x


def hooked_attentional_pooler_timm_forward(self, x):
    B, N, C = x.shape
    if self.pos_embed is not None:
        x = x + self.pos_embed.unsqueeze(0).to(x.dtype)
    q_latent = self.latent.expand(B, -1, -1)
    q = self.q(q_latent).reshape(B, self.latent_len, self.num_heads, self.head_dim).transpose(1, 2)
    kv = self.kv(x).reshape(B, N, 2, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
    k, v = kv.unbind(0)
    q, k = self.q_norm(q), self.k_norm(k)
    q = q * self.scale
    attn = q @ k.transpose(-2, -1)
    attn = attn.softmax(dim=-1)
    x = attn @ v
    self.attn_probs = attn
    x = x.transpose(1, 2).reshape(B, self.latent_len, C)
    x = self.proj(x)
    x = self.proj_drop(x)
    x = x + self.mlp(self.norm(x))
    if self.pool == 'token':
        x = x[:, 0]
    elif self.pool == 'avg':
        x = x.mean(1)
    return x


def min_max(logits):
    B, num_prompt = logits.shape[:2]
    logits_min = logits.reshape(B, num_prompt, -1).min(dim=-1, keepdim=True)[0].unsqueeze(-1)
    logits_max = logits.reshape(B, num_prompt, -1).max(dim=-1, keepdim=True)[0].unsqueeze(-1)
    logits = (logits - logits_min) / (logits_max - logits_min)
    return logits


def compute_legrad_siglip(self, starting_depth, empty_embedding, text_embedding, image, correction_threshold=0.8):
    blocks_list = list(dict(self.visual.trunk.blocks.named_children()).values())
    _ = self.encode_image(image)
    image_features_list = []
    for blk in blocks_list[starting_depth:]:
        intermediate_feat = blk.feat_post_mlp
        image_features_list.append(intermediate_feat)
    num_tokens = blocks_list[-1].feat_post_mlp.shape[1]
    w = h = int(math.sqrt(num_tokens))
    accum_expl_map_empty = 0
    accum_expl_map = 0
    for layer, (blk, img_feat) in enumerate(zip(blocks_list[starting_depth:], image_features_list)):
        self.zero_grad()
        pooled_feat = self.visual.trunk.attn_pool(img_feat)
        pooled_feat = F.normalize(pooled_feat, dim=-1)
        sim = text_embedding @ pooled_feat.transpose(-1, -2)
        one_hot = torch.sum(sim)
        grad = torch.autograd.grad(one_hot, [self.visual.trunk.attn_pool.attn_probs], retain_graph=True,
                                   create_graph=True)[0]
        grad = torch.clamp(grad, min=0.)
        image_relevance = grad.mean(dim=1)[:, 0]
        expl_map = image_relevance.reshape(-1, 1, w, h)  # rearrange 'b (w h) -> b 1 w h'
        accum_expl_map += expl_map
        sim_empty = pooled_feat @ empty_embedding
        one_hot_empty = torch.sum(sim_empty)
        grad_empty = torch.autograd.grad(one_hot_empty, [self.visual.trunk.attn_pool.attn_probs],
                                         retain_graph=True, create_graph=True)[0]
        grad_empty = torch.clamp(grad_empty, min=0.)
        image_relevance_empty = grad_empty.mean(dim=1)[:, 0]
        expl_map_empty = image_relevance_empty.reshape(-1, 1, w, h)
        accum_expl_map_empty += expl_map_empty
    heatmap_empty = min_max(accum_expl_map_empty)
    accum_expl_map[heatmap_empty > correction_threshold] = 0
    return min_max(accum_expl_map)


def authors_maps(encoder, image, texts, layer_index):
    """(texts, patches) the transcription's maps, one call per text as their function takes one image and sums over
    its texts; their hooks bound on the model and unbound after."""
    model, trunk = encoder.model, encoder.model.visual.trunk
    depth = len(trunk.blocks)
    starting_depth = layer_index if layer_index >= 0 else depth + layer_index
    for block in trunk.blocks[starting_depth:]:
        block.forward = hooked_resblock_timm_forward.__get__(block)
    trunk.attn_pool.forward = hooked_attentional_pooler_timm_forward.__get__(trunk.attn_pool)
    try:
        with torch.no_grad():
            empty = F.normalize(model.encode_text(encoder.tokenizer([NEUTRAL_PROMPT])), dim=-1).t()
            embeddings = F.normalize(model.encode_text(encoder.tokenizer(texts)), dim=-1)
        pixels = encoder.preprocess(image).unsqueeze(0).requires_grad_()
        with torch.enable_grad():
            return np.stack([compute_legrad_siglip(model, starting_depth, empty, t[None], pixels).detach().reshape(-1)
                             .numpy() for t in embeddings])
    finally:
        for module in (*trunk.blocks, trunk.attn_pool):
            module.__dict__.pop("forward", None)


@pytest.mark.parametrize("layer_index", [-2, 0])
def test_the_maps_are_the_authors_compute_legrad_siglip(pooled, scene, layer_index, monkeypatch):
    image, captions = scene
    texts = [*captions, "a red square", "a blue circle"]
    found = get_explainer("legrad", pooled, layer_index=layer_index).relevance(image, texts)
    mine = np.stack([r.grid.ravel() for r in found])
    theirs = authors_maps(pooled, image, texts, layer_index)
    for a, b in zip(mine, theirs):
        assert np.corrcoef(a, b)[0, 1] >= 0.99 and a.argmax() == b.argmax()
    assert np.allclose(mine, theirs, atol=1e-4)
    assert not np.allclose(mine[0], mine[2], atol=0.05)  # another text, another map
    monkeypatch.setattr(legrad_pool, "NEUTRAL_THRESHOLD", 2.0)  # no correction: the check above exercised it
    uncorrected = get_explainer("legrad", pooled, layer_index=layer_index).relevance(image, texts)
    assert not np.allclose(np.stack([r.grid.ravel() for r in uncorrected]), mine, atol=0.05)


def test_the_sanity_check_randomizes_a_pooled_towers_blocks_and_its_maps_move(pooled):
    """The sanity check reads a timm ViT's blocks (SigLIP's tower has no stages): each of its 3 blocks randomized in
    turn, LeGrad's maps decorrelate from the trained model's."""
    from explorer.explain.sanity import sanity_report, tower_blocks

    torch.manual_seed(0)
    fresh = DualEncoder("pool-vit-tiny-map", pretrained=None)  # the transcription's hooks leave tensors on `pooled`
    assert len(tower_blocks(fresh.model)) == TOWER["depth"]
    pairs = [(item.images[0], item.captions[0]) for item in world.swap_items("val-id", "attribute", 2)]
    curve = sanity_report(fresh, ["legrad"], pairs)["explainers"]["legrad"]
    assert curve["randomized_blocks"] == [1, 2, 3]
    assert all(rho is None or rho < 0.999 for rho in curve["spearman"]), curve  # randomized weights move the maps
