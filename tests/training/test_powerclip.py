"""The PowerCLIP objective: the batched NLA score against brute force, the triplet loss, masks, a training run."""

import itertools
import math

import numpy as np
import pytest
import torch
from safetensors.torch import load_file

from explorer import world
from explorer.training.powerclip import object_masks, powerset_scores, triplet_loss
from explorer.training.world_clip import TrainConfig, train


def brute_force_score(a: np.ndarray, tau: float) -> float:
    """mean_k soft-max over non-empty subsets + max_k mean over subsets, enumerated; a (M, K)."""
    m, k = a.shape
    subsets = [s for r in range(1, m + 1) for s in itertools.combinations(range(m), r)]
    sums = np.array([[a[list(s), j].sum() for j in range(k)] for s in subsets])  # (2^m - 1, K)
    t2r = np.mean([np.log(np.exp(tau * sums[:, j]).sum()) / tau for j in range(k)])
    r2t_lower = sums.mean(0).max()
    return float(t2r + r2t_lower)


def test_batched_score_equals_enumeration_and_ignores_padding():
    torch.manual_seed(3)
    regions = torch.randn(2, 4, 8) * 0.1
    region_valid = torch.tensor([[True, True, True, True], [True, True, False, False]])
    nodes = torch.randn(3, 3, 8) * 0.3
    node_valid = torch.tensor([[True, True, True], [True, False, False], [True, True, False]])
    got = powerset_scores(regions, region_valid, nodes, node_valid, tau=20.0)
    for b, c in itertools.product(range(2), range(3)):
        a = (regions[b][region_valid[b]] @ nodes[c][node_valid[c]].T).double().numpy()
        assert got[b, c].item() == pytest.approx(brute_force_score(a, 20.0), abs=1e-5)


def test_triplet_loss_is_zero_only_when_every_positive_wins_by_the_margin():
    good = torch.eye(4) * 1.0
    assert triplet_loss(good, margin=0.2).item() == 0.0
    close = torch.eye(4) * 0.1
    assert triplet_loss(close, margin=0.2).item() == pytest.approx(2 * 0.1)
    wrong = 1.0 - torch.eye(4)
    assert triplet_loss(wrong, margin=0.2).item() == pytest.approx(2 * 1.2)


def test_object_masks_lie_on_each_object():
    scenes = [world.random_scene(np.random.default_rng(s), world.seen_combos()) for s in range(6)]
    masks, valid = object_masks(scenes, 128, 8)
    for scene, m, v in zip(scenes, masks, valid):
        assert v.sum() == len(scene.objects)
        pixels = np.asarray(scene.render(128)).reshape(8, 16, 8, 16, 3).transpose(0, 2, 1, 3, 4).reshape(64, 256, 3)
        for obj, row in zip(scene.objects, m):
            color = np.array(world.COLORS[obj.color])
            on = (np.abs(pixels[row.bool().numpy()] - color).max(-1) < 10).mean(1)  # share of each patch in the colour
            assert row.sum() >= 1 and on.max() > 0.3
    assert not valid[:, masks.shape[1]:].any()


def test_powerclip_objective_trains_and_records_itself(tmp_path, tiny_model):
    cfg = TrainConfig(model=tiny_model, steps=2, batch_size=8, warmup=1, checkpoint_every=1, threads=1, objective="powerclip")
    record = train(cfg, tmp_path / "run", tmp_path / "pc.safetensors")
    assert record["config"]["objective"] == "powerclip" and math.isfinite(record["final_loss"])
    assert "visual.proj" in load_file(tmp_path / "pc.safetensors")


def test_an_unknown_objective_is_refused(tmp_path, tiny_model):
    with pytest.raises(ValueError, match="unknown objective"):
        train(TrainConfig(model=tiny_model, steps=1, objective="negclip"), tmp_path / "r", tmp_path / "w.safetensors")



def test_lambda_weighs_the_triplet_term(tmp_path, tiny_model):
    """At lambda 0 the PowerCLIP objective is the CLIP loss, step for step; another lambda changes the loss; the card
    names the lambda of its record."""
    from explorer.training.card import objective_line

    def final_loss(objective: str, weight: float) -> float:
        cfg = TrainConfig(model=tiny_model, steps=2, batch_size=8, warmup=1, threads=1, objective=objective,
                          powerclip_lambda=weight)
        return train(cfg, tmp_path / f"run-{objective}-{weight}", tmp_path / f"{objective}-{weight}.safetensors")["final_loss"]

    clip = final_loss("clip", 1.0)
    assert final_loss("powerclip", 0.0) == pytest.approx(clip, abs=1e-6)
    assert abs(final_loss("powerclip", 0.5) - clip) > 1e-4
    assert "lambda = 0.1 times" in objective_line({"objective": "powerclip", "powerclip_lambda": 0.1})
    assert "lambda = 1.0 times" in objective_line({"objective": "powerclip"})  # a record from before the flag
