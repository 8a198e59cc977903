"""explorer/api.py's heads: the notebook gets the embedding, its parts and each head's share of the margin."""

import numpy as np

from explorer import world
from explorer.api import Explorer


def test_the_notebook_reads_the_embedding_its_parts_and_the_heads_shares():
    explorer = Explorer(methods=["global"])
    scene = world.Scene((world.WorldObject("red", "square", "large", 0.27, 0.3),
                         world.WorldObject("blue", "circle", "large", 0.72, 0.7))).render(128)
    found = explorer.heads(scene, "a red square and a blue circle", "a blue square and a red circle")
    encoder = explorer.engine.model().encoder
    dim = encoder.embed_dim
    assert found.embedding.shape == (dim,) and found.parts.shape[-1] == dim
    assert np.allclose(found.parts.sum(0), found.embedding, atol=1e-4)
    unit = found.embedding / np.linalg.norm(found.embedding)
    assert np.allclose(unit, encoder.embed_images([scene])[0].numpy(), atol=1e-5)  # the model's own embedding
    blocks = encoder.model.visual.transformer.resblocks
    assert found.shares.shape == (len(blocks), blocks[0].attn.num_heads)
    assert np.isclose(found.shares.sum() + found.mlps.sum() + found.stem, found.margin, atol=1e-5)
