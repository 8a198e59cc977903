"""The head split: its parts sum to the embedding, and they equal the authors' projected residual stream (a
transcription of ``yossigandelsman/clip_text_span``'s ``prs_hook.PRSLogger`` and the ``method="head"`` forward of
their ``utils/transformer.py``, below, as a reference only) head by head."""

import numpy as np
import pytest
import torch
from open_clip.transformer import VisionTransformer
from torch import nn

from explorer import world
from explorer.explain.heads import applies, decompose, why_not


class TinyViT(nn.Module):
    """An open_clip ViT image tower with random weights, every parameter (LayerNorm and output biases too) moved off
    its initial value, behind ``encode_image``."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__()
        torch.manual_seed(seed)
        self.visual = VisionTransformer(image_size=32, patch_size=8, width=64, layers=3, heads=4, mlp_ratio=2.0,
                                        output_dim=24)
        with torch.no_grad():
            for p in self.visual.parameters():
                p.add_(0.1 * torch.randn_like(p))
        self.eval()

    def encode_image(self, pixels: torch.Tensor) -> torch.Tensor:
        return self.visual(pixels)


# ---- the authors' code, transcribed line by line (their hook points called by hand where their model calls them) --

class PRSLogger(object):
    def __init__(self, model, device, spatial: bool = True):
        self.current_layer = 0
        self.device = device
        self.attentions = []
        self.mlps = []
        self.spatial = spatial
        self.post_ln_std = None
        self.post_ln_mean = None
        self.model = model

    @torch.no_grad()
    def compute_attentions_spatial(self, ret):
        assert len(ret.shape) == 5  # [b, n, m, h, d]
        bias_term = self.model.visual.transformer.resblocks[self.current_layer].attn.out_proj.bias
        self.current_layer += 1
        return_value = ret[:, 0].detach().cpu()  # This is only for the cls token
        self.attentions.append(
            return_value
            + bias_term[np.newaxis, np.newaxis, np.newaxis].cpu() / (return_value.shape[1] * return_value.shape[2])
        )  # [b, n, h, d]
        return ret

    @torch.no_grad()
    def compute_mlps(self, ret):
        self.mlps.append(ret[:, 0].detach().cpu())  # [b, d]
        return ret

    @torch.no_grad()
    def log_post_ln_mean(self, ret):
        self.post_ln_mean = ret.detach().cpu()  # [b, 1]
        return ret

    @torch.no_grad()
    def log_post_ln_std(self, ret):
        self.post_ln_std = ret.detach().cpu()  # [b, 1]
        return ret

    def _normalize_mlps(self):
        len_intermediates = self.attentions.shape[1] + self.mlps.shape[1]
        mean_centered = self.mlps - self.post_ln_mean[:, :, np.newaxis].to(self.device) / len_intermediates
        weighted_mean_centered = self.model.visual.ln_post.weight.detach().to(self.device) * mean_centered
        weighted_mean_by_std = weighted_mean_centered / self.post_ln_std[:, :, np.newaxis].to(self.device)
        bias_term = self.model.visual.ln_post.bias.detach().to(self.device) / len_intermediates
        post_ln = weighted_mean_by_std + bias_term
        return post_ln @ self.model.visual.proj.detach().to(self.device)

    def _normalize_attentions_spatial(self):
        len_intermediates = self.attentions.shape[1] + self.mlps.shape[1]  # 2*l + 1
        normalization_term = self.attentions.shape[2] * self.attentions.shape[3]  # n * h
        mean_centered = self.attentions - self.post_ln_mean[:, :, np.newaxis, np.newaxis, np.newaxis].to(
            self.device) / (len_intermediates * normalization_term)
        weighted_mean_centered = self.model.visual.ln_post.weight.detach().to(self.device) * mean_centered
        weighted_mean_by_std = weighted_mean_centered / self.post_ln_std[:, :, np.newaxis, np.newaxis, np.newaxis].to(
            self.device)
        bias_term = self.model.visual.ln_post.bias.detach().to(self.device) / (len_intermediates * normalization_term)
        post_ln = weighted_mean_by_std + bias_term
        return post_ln @ self.model.visual.proj.detach().to(self.device)

    @torch.no_grad()
    def finalize(self, representation):
        self.attentions = torch.stack(self.attentions, axis=1).to(self.device)  # [b, l, n, h, d]
        self.mlps = torch.stack(self.mlps, axis=1).to(self.device)  # [b, l + 1, d]
        projected_attentions = self._normalize_attentions_spatial()
        projected_mlps = self._normalize_mlps()
        norm = representation.norm(dim=-1).detach()
        return (projected_attentions / norm[:, np.newaxis, np.newaxis, np.newaxis, np.newaxis],
                projected_mlps / norm[:, np.newaxis, np.newaxis])


def forward_per_head(attn, x):
    """Their ``MultiheadAttention.forward_per_head`` on open_clip's ``nn.MultiheadAttention`` weights: the
    ``out.post`` value (their hook) and the output."""
    B, N, C = x.shape
    heads, head_dim = attn.num_heads, C // attn.num_heads
    q_weight, k_weight, v_weight = (w.reshape(heads, head_dim, -1) for w in attn.in_proj_weight.chunk(3))
    q_bias, k_bias, v_bias = (b.reshape(1, heads, 1, head_dim) for b in attn.in_proj_bias.chunk(3))
    q = torch.einsum("bnc,hdc->bhnd", x, q_weight) + q_bias
    k = torch.einsum("bnc,hdc->bhnd", x, k_weight) + k_bias
    v = torch.einsum("bnc,hdc->bhnd", x, v_weight) + v_bias
    q = q / (q.size()[-1] ** 0.5)
    attn_probs = (q @ k.transpose(-2, -1)).softmax(dim=-1)
    x = torch.einsum("bhnm,bhmc->bnmhc", attn_probs, v)
    ret = torch.einsum("bnmhc,dhc->bnmhd", x, attn.out_proj.weight.reshape(C, heads, head_dim))
    return ret, ret.sum(axis=[2, 3]) + attn.out_proj.bias


def their_layer_norm(ln, x, prs=None):
    """Their ``LayerNorm.forward``, with the ``mean`` and ``sqrt_var`` hooks."""
    mean = x.mean(dim=-1, keepdim=True)
    var = (x ** 2).mean(dim=-1, keepdim=True) - mean ** 2
    sqrt_var = torch.sqrt(var + ln.eps)
    if prs is not None:
        prs.log_post_ln_mean(mean[:, :1] if mean.ndim == 2 else mean)
        prs.log_post_ln_std(sqrt_var)
    return ln.weight * ((x - mean) / sqrt_var) + ln.bias


@torch.no_grad()
def authors_prs(model, pixels):
    """Their ``compute_prs.main`` for one batch: ``encode_image(attn_method="head")`` with ``hook_prs_logger``."""
    visual, prs = model.visual, PRSLogger(model, "cpu")
    x = visual.conv1(pixels).flatten(2).permute(0, 2, 1)
    x = torch.cat([visual.class_embedding + torch.zeros(x.shape[0], 1, x.shape[-1]), x], dim=1)
    x = x + visual.positional_embedding
    x = their_layer_norm(visual.ln_pre, x)
    prs.compute_mlps(x)  # "visual.ln_pre_post"
    for block in visual.transformer.resblocks:
        ret, after_attn = forward_per_head(block.attn, their_layer_norm(block.ln_1, x))
        prs.compute_attentions_spatial(ret)  # "visual.transformer.resblocks.*.attn.out.post"
        x = x + after_attn
        after_mlp = block.mlp(their_layer_norm(block.ln_2, x))
        prs.compute_mlps(after_mlp)  # "visual.transformer.resblocks.*.mlp.c_proj.post"
        x = x + after_mlp
    representation = their_layer_norm(visual.ln_post, x[:, 0], prs) @ visual.proj
    attentions, mlps = prs.finalize(representation)
    return representation, attentions, mlps


# ---- the tests ----------------------------------------------------------------------------------------------------

def _sums(model, pixels):
    for found in decompose(model, pixels):
        assert found.parts.shape[-1] == found.embedding.shape[0]
        assert torch.allclose(found.parts.sum(0), found.embedding, atol=1e-4)
    return found


def test_the_parts_sum_to_the_embedded_models_embedding(embedded):
    item = world.swap_items("val-id", "attribute", 1)[0]
    pixels = torch.stack([embedded.preprocess(p.render(embedded.image_size)) for p in item.images])
    found = _sums(embedded.model, pixels)
    blocks = embedded.model.visual.transformer.resblocks
    assert found.heads.shape[:3] == (len(blocks), blocks[0].attn.num_heads, 1 + np.prod(embedded.grid))
    direct = embedded.model.encode_image(pixels[-1:])[0].float()
    assert torch.allclose(found.embedding, direct.detach(), atol=1e-5)  # the model's own embedding, unnormalised


def test_the_parts_sum_to_a_random_vit_b_32s_embedding(random_vit):
    _sums(random_vit.model, torch.randn(1, 3, 224, 224, generator=torch.Generator().manual_seed(0)))


@pytest.mark.parametrize("which", ["tiny", pytest.param("ViT-B-32", marks=pytest.mark.slow)])
def test_each_head_equals_the_authors_projected_residual_stream(which, random_vit):
    model = TinyViT() if which == "tiny" else random_vit.model
    size = model.visual.image_size[0]
    images = 2 if which == "tiny" else 1  # their reference forms every query's parts: 40 s for two ViT-B-32 images
    pixels = torch.randn(images, 3, size, size, generator=torch.Generator().manual_seed(1))
    representation, attentions, mlps = authors_prs(model, pixels)  # [b, l, n, h, d], [b, l + 1, d], / |e|
    found = decompose(model, pixels)
    for b, parts in enumerate(found):
        norm = parts.embedding.norm()
        assert torch.allclose(parts.embedding, representation[b], atol=1e-4)
        ours = parts.heads.permute(0, 2, 1, 3) / norm  # (l, tokens, heads, d) as theirs
        assert torch.allclose(ours, attentions[b], atol=1e-5)
        for layer in range(ours.shape[0]):
            for head in range(ours.shape[2]):
                r = np.corrcoef(ours[layer, :, head].flatten(), attentions[b, layer, :, head].flatten())[0, 1]
                assert r >= 0.9999, (layer, head, r)
        assert torch.allclose(torch.cat([parts.stem[None], parts.mlps]) / norm, mlps[b], atol=1e-5)


def test_a_tower_it_does_not_split_is_named():
    class Pooled(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.visual = VisionTransformer(image_size=32, patch_size=8, width=64, layers=1, heads=4, mlp_ratio=2.0,
                                            output_dim=24, attentional_pool=True, attn_pooler_queries=4)

    assert applies(TinyViT()) and not applies(Pooled())
    with pytest.raises(ValueError, match="not one"):
        decompose(Pooled(), torch.zeros(1, 3, 32, 32))
    assert why_not(TinyViT()) == ""
