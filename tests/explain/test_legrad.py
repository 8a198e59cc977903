"""LeGrad (explorer/explain/legrad.py): registered beside the other explainers, normalised per prompt, equal to the
method written out by hand over world-clip's blocks, its layers a setting, and it fails the randomization check as a
map that reads the model must."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from explorer import world
from explorer.explain import REGISTRY, explainers_for, get_explainer
from explorer.explain.sanity import sanity_report
from scripts.explainer_references import image_forward


@pytest.fixture(scope="module")
def scene():
    item = world.swap_items("val-id", "attribute", 1)[0]
    return item.images[0].render(128), list(item.captions)


def test_legrad_is_an_explainer_of_the_embedded_vit(embedded):
    assert "legrad" in explainers_for(embedded.model) and REGISTRY["legrad"].label.startswith("LeGrad")
    assert get_explainer("legrad", embedded).first_block == 0  # every block: chosen on val
    assert get_explainer("legrad", embedded, layer_index=-2).first_block == 2  # the authors' default, the last two


def test_each_prompts_map_is_min_max_normalised_on_the_patch_grid(embedded, scene):
    image, captions = scene
    found = get_explainer("legrad", embedded).relevance(image, [*captions, "a red square", "a blue circle"])
    for r in found:
        assert r.grid.shape == embedded.model.visual.grid_size and r.map.shape == (image.height, image.width)
        assert r.grid.min() == pytest.approx(0, abs=1e-6) and r.grid.max() == pytest.approx(1, abs=1e-6)
    assert not np.allclose(found[2].grid, found[3].grid, atol=0.05)  # another prompt, another map


def test_the_map_is_legrad_written_out_over_the_blocks(embedded, scene):
    """Each read block's own feature (ln_post of the mean of its tokens, projected, unit length) scored against the
    text; the gradient by that block's attention, ReLU, mean over heads and queries, class key dropped; summed,
    min-max normalised."""
    image, captions = scene
    model = embedded.model
    for layer_index in (-2, 0):
        found = get_explainer("legrad", embedded, layer_index=layer_index).relevance(image, captions)
        pixels = embedded.preprocess(image).unsqueeze(0).repeat(len(captions), 1, 1, 1)
        with torch.no_grad():
            texts = F.normalize(model.encode_text(embedded.tokenizer(captions)), dim=-1)
        _, record = image_forward(model, pixels)
        total = 0
        for block in record[layer_index % len(record):]:
            feature = F.normalize(model.visual.ln_post(block["out"].mean(1)) @ model.visual.proj, dim=-1)
            grad = torch.autograd.grad((feature * texts).sum(), block["probs"], retain_graph=True)[0]
            total = total + grad.clamp(min=0).mean(dim=(1, 2))[:, 1:]
        low, high = total.min(1, keepdim=True).values, total.max(1, keepdim=True).values
        by_hand = ((total - low) / (high - low)).detach().numpy()
        assert np.allclose(np.stack([r.grid.ravel() for r in found]), by_hand, atol=1e-4)


def test_its_layers_are_a_setting_and_a_wrong_one_is_refused(embedded, scene):
    image, captions = scene
    last, two = (get_explainer("legrad", embedded, layer_index=i).relevance(image, captions[:1])[0].grid
                 for i in (-1, -2))
    assert not np.allclose(last, two, atol=0.01)
    with pytest.raises(ValueError, match="layer_index must lie below 4"):
        get_explainer("legrad", embedded, layer_index=4)
    assert get_explainer("legrad", embedded, layer_index=-9).first_block == 0  # more than there are: every block


def test_randomizing_the_blocks_moves_legrads_maps(embedded):
    item = world.swap_items("val-id", "attribute", 1)[0]
    curve = sanity_report(embedded, ["legrad"], [(item.images[0], item.captions[0])])["explainers"]["legrad"]
    assert curve["randomized_blocks"] == [1, 2, 3, 4] and curve["constant"] == [0] * 4
    assert curve["spearman"][-1] < 0.9
