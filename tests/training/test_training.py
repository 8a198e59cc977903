"""Training the embedded model (``explorer/training/world_clip.py``): the loss, weights and records, warm starts,
drawing workers, resuming, and bf16 towers with fp32 weights."""

import json
from pathlib import Path

import numpy as np
import open_clip
import pytest
import torch
from safetensors.torch import load_file

from explorer import world
from explorer.models.modeling.patch_embedding import PatchEmbeddingInFp32
from explorer.training import world_clip
from explorer.training.world_clip import TrainConfig, clip_loss, train


def config(model, steps=4):
    return TrainConfig(model=model, steps=steps, batch_size=8, warmup=1, checkpoint_every=1, threads=1)


def test_clip_loss_prefers_matched_pairs():
    x = torch.nn.functional.normalize(torch.randn(8, 16), dim=-1)
    matched = clip_loss(x, x, torch.tensor(20.0))
    shuffled = clip_loss(x, x.roll(1, 0), torch.tensor(20.0))
    assert matched < shuffled


def test_training_writes_weights_and_a_record(tmp_path, tiny_model):
    record = train(config(tiny_model), tmp_path / "run", tmp_path / "w.safetensors")
    weights = load_file(tmp_path / "w.safetensors")
    assert "visual.proj" in weights and record["images_seen"] == 32
    saved = json.loads((tmp_path / "w.json").read_text())
    assert saved["config"]["model"] == tiny_model and len(saved["seen_combos"]) == 24
    assert np.isfinite(saved["final_loss"]) and saved["device"] == "1 CPU threads"


def test_a_run_started_from_a_checkpoint_starts_from_its_weights(tmp_path, tiny_model):
    import hashlib
    from dataclasses import replace

    train(config(tiny_model, steps=2), tmp_path / "base", tmp_path / "base.safetensors")
    base = load_file(tmp_path / "base.safetensors")
    frozen = replace(config(tiny_model, steps=2), init=str(tmp_path / "base.safetensors"), lr=0.0, varied_renders=0.5)
    record = train(frozen, tmp_path / "warm", tmp_path / "warm.safetensors")  # lr 0: nothing moves from the start
    warm = load_file(tmp_path / "warm.safetensors")
    assert all(torch.equal(base[k], warm[k]) for k in base)
    assert record["init_sha256"] == hashlib.sha256((tmp_path / "base.safetensors").read_bytes()).hexdigest()
    train(replace(frozen, init=None), tmp_path / "fresh", tmp_path / "fresh.safetensors")
    fresh = load_file(tmp_path / "fresh.safetensors")  # the seed's random start, not the checkpoint's weights
    assert not torch.equal(base["visual.proj"], fresh["visual.proj"])


def test_drawing_workers_give_the_same_weights(tmp_path, tiny_model):
    cfg = TrainConfig(model=tiny_model, steps=3, batch_size=8, warmup=1, checkpoint_every=10, threads=1,
                      extra_concepts=4, benchmark_share=0.5)
    train(cfg, tmp_path / "inline", tmp_path / "inline.safetensors")
    train(cfg, tmp_path / "workers", tmp_path / "workers.safetensors", workers=2)
    inline, ahead = load_file(tmp_path / "inline.safetensors"), load_file(tmp_path / "workers.safetensors")
    for k in inline:
        torch.testing.assert_close(inline[k], ahead[k], rtol=0, atol=0)


def test_an_interrupted_run_resumes_to_the_same_weights(tmp_path, tiny_model, monkeypatch):
    train(config(tiny_model), tmp_path / "full", tmp_path / "full.safetensors")
    batches = world.training_batch
    calls = []

    def dies_at_third(*a, **k):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return batches(*a, **k)

    monkeypatch.setattr(world_clip.world, "training_batch", dies_at_third)
    with pytest.raises(KeyboardInterrupt):
        train(config(tiny_model), tmp_path / "cut", tmp_path / "cut.safetensors")
    monkeypatch.setattr(world_clip.world, "training_batch", batches)
    state = torch.load(tmp_path / "cut" / "last.pt", weights_only=True)
    assert state["step"] == 2
    train(config(tiny_model), tmp_path / "cut", tmp_path / "cut.safetensors")
    full, resumed = load_file(tmp_path / "full.safetensors"), load_file(tmp_path / "cut.safetensors")
    for k in full:
        torch.testing.assert_close(full[k], resumed[k])


def test_resuming_with_another_config_is_refused(tmp_path, tiny_model):
    train(config(tiny_model, steps=2), tmp_path / "run", tmp_path / "w.safetensors")
    with pytest.raises(ValueError, match="another config"):
        train(config(tiny_model, steps=3), tmp_path / "run", tmp_path / "w.safetensors")


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_a_few_steps_lower_the_loss(tmp_path, tiny_model, precision):
    cfg = TrainConfig(model=tiny_model, steps=30, batch_size=16, warmup=2, checkpoint_every=100, threads=1, lr=3e-3,
                      precision=precision)
    record = train(cfg, tmp_path / "run", tmp_path / "w.safetensors")
    curve = record["loss_curve"]
    assert np.isfinite(curve).all() and np.mean(curve[-3:]) < np.mean(curve[:3])


def test_bf16_training_runs_the_towers_in_bf16_and_keeps_fp32_weights(tmp_path, tiny_model):
    runs = {}
    for precision in ("fp32", "bf16"):
        cfg = TrainConfig(model=tiny_model, steps=3, batch_size=8, warmup=1, checkpoint_every=10, threads=1,
                          precision=precision)
        record = train(cfg, tmp_path / precision, tmp_path / f"{precision}.safetensors")
        runs[precision] = (record, load_file(tmp_path / f"{precision}.safetensors"))
    (full, full_w), (mixed, mixed_w) = runs["fp32"], runs["bf16"]
    assert all(w.dtype == torch.float32 for w in mixed_w.values()) and mixed["config"]["precision"] == "bf16"
    assert abs(mixed["loss_curve"][0] - full["loss_curve"][0]) < 0.05  # the same batch, scored at lower precision
    assert not torch.equal(full_w["visual.proj"], mixed_w["visual.proj"])


def test_the_patch_embedding_stays_fp32_under_autocast():
    conv = torch.nn.Conv2d(3, 4, 8, 8)
    x = torch.randn(2, 3, 16, 16)
    with world_clip.mixed_precision("cpu", "bf16"):
        plain = conv(x)
        conv.__class__ = PatchEmbeddingInFp32
        kept = conv(x)
    assert plain.dtype == torch.bfloat16 and kept.dtype == torch.float32
    torch.testing.assert_close(kept, torch.nn.functional.conv2d(x, conv.weight, conv.bias, stride=8))


@pytest.mark.parametrize("native", [True, False])
def test_bf16_on_a_cpu_without_native_bf16_is_warned_of(monkeypatch, caplog, native):
    monkeypatch.setattr(world_clip, "cpu_has_native_bf16", lambda: native)
    with caplog.at_level("WARNING", logger=world_clip.__name__):
        assert world_clip.warn_if_emulated("bf16", "cpu") is (not native)
        assert world_clip.warn_if_emulated("fp32", "cpu") is False and world_clip.warn_if_emulated("bf16", "cuda") is False
    assert ("use --precision fp32" in caplog.text) is (not native)


def test_an_unknown_precision_is_refused_before_any_work(tmp_path, tiny_model):
    cfg = TrainConfig(model=tiny_model, steps=2, batch_size=8, precision="fp8")
    with pytest.raises(ValueError, match="unknown precision 'fp8'; known: fp32, bf16"):
        train(cfg, tmp_path / "run", tmp_path / "w.safetensors")
    assert not (tmp_path / "run").exists()


def test_a_batch_preprocesses_as_its_pictures_do_one_by_one(tiny_model):
    _, _, preprocess = open_clip.create_model_and_transforms(tiny_model, pretrained=None)
    scenes = [world.random_scene(np.random.default_rng(s), world.ALL_COMBOS, style=style)
              for s, style in enumerate(["plain", "grey", "shift", "plain"])]
    for size in (32, 48):  # the model's own size takes the vectorized path; another size the per-picture one
        pictures = [s.render(size) for s in scenes]
        one_by_one = torch.stack([preprocess(p) for p in pictures])
        assert torch.equal(world_clip.preprocess_batch(preprocess, pictures), one_by_one)


def test_a_cards_command_line_reproduces_the_training_config():
    from dataclasses import asdict

    from explorer.cli import build_parser
    from explorer.commands.train_world import train_config
    from explorer.training.card import train_command

    cfg = TrainConfig(coverage=0.5, seed=3, steps=40, batch_size=16, lr=5e-4, partial_captions=0.2,
                      grey_images=0.1, unnamed_colours=0.3, extra_concepts=4, benchmark_share=0.4, precision="bf16")
    argv = train_command(asdict(cfg), world_clip.Path("/tmp/x.safetensors"), "2 CPU threads").split()[3:]  # after "python -m explorer"
    assert train_config(build_parser().parse_args(argv)) == cfg and build_parser().parse_args(argv).device == "cpu"
    unrecorded = train_command(asdict(cfg), world_clip.Path("/tmp/x.safetensors")).split()[3:]  # an older record
    assert build_parser().parse_args(unrecorded).device is None
    on_gpu = train_command(asdict(cfg), world_clip.Path("/tmp/x.safetensors"), "NVIDIA H200 (CUDA)").split()[3:]
    assert build_parser().parse_args(on_gpu).device == "cuda"


def test_the_shipped_models_card_says_how_each_stage_was_made():
    """The card's command remakes the last stage from the stage before it; the lineage before it names each warm
    start with its weights' sha256, steps, seed and wall time, all on 2 CPU threads, and the card adds them up."""
    from dataclasses import asdict

    from explorer.cli import build_parser
    from explorer.commands.train_world import train_config
    from explorer.models.checkpoints import EMBEDDED_CHECKPOINT

    record = json.loads(EMBEDDED_CHECKPOINT.with_suffix(".json").read_text())
    cfg = record["config"]
    assert record["device"] == "2 CPU threads" and cfg["threads"] == 2
    assert record["images_seen"] == cfg["steps"] * cfg["batch_size"]
    card = EMBEDDED_CHECKPOINT.with_suffix(".md").read_text()
    command = card.split("Made by `python -m explorer ", 1)[1].split("`", 1)[0].split()
    args = build_parser().parse_args(command)
    assert args.out is None and args.device == "cpu"  # the embedded path, retrained where it was trained
    assert asdict(train_config(args)) == {**asdict(TrainConfig()), **{k: v for k, v in cfg.items() if k != "model"}}
    origin, *stages = record["lineage"]
    assert cfg["init"].endswith(f"world-clip-{stages[-1]['run']}.safetensors")
    assert record["init_sha256"] == stages[-1]["sha256"]
    total = (sum(s["wall_s"] for s in stages) + record["wall_s"]) / 60
    assert f"the warm starts took {total:.1f} min" in card
    for stage in stages:
        assert f"{stage['run']}: {stage['steps']} steps, `--seed {stage['seed']}`" in card


def _without_intervals(x):
    return {k: _without_intervals(v) for k, v in x.items() if k != "ci"} if isinstance(x, dict) else x


def test_the_shipped_card_measures_what_the_eval_reports_in_docs_measured():
    """The card's figures (``model-card``) are those of ``eval`` run by the commands in docs/drawings.md on the same
    weights and splits: an item that is an exact float32 tie once counted the other way in a card measured otherwise."""
    from explorer.models.checkpoints import EMBEDDED_CHECKPOINT

    shipped = json.loads(EMBEDDED_CHECKPOINT.with_suffix(".json").read_text())["measured"]
    reports = Path(__file__).parents[2] / "docs/results/drawings"
    for reading in ("single", "swaps"):
        name = "shipped-single.json" if reading == "single" else "shipped-global.json"
        report = json.loads((reports / name).read_text())["results"]["global"]
        assert _without_intervals(report) == _without_intervals(shipped[reading])
    card = EMBEDDED_CHECKPOINT.with_suffix(".md").read_text()
    size = shipped["swaps"]["style"]["size"]
    assert f"{size['text']} / {size['image']} / {size['group']}" in card


def test_the_twins_card_measures_what_its_eval_report_measured():
    """The shipped PowerCLIP twin's card figures are its ``eval`` report's (docs/powerclip-world.md), and its record
    links it to the warm starts it started from, as the embedded model's does."""
    from explorer.models import checkpoints

    twin = checkpoints.get("world-clip-powerclip").path
    record = json.loads(twin.with_suffix(".json").read_text())
    report = json.loads((Path(__file__).parents[2] / "docs/results/powerclip/twin-m2000-global.json").read_text())
    assert _without_intervals(report["results"]["global"]) == _without_intervals(record["measured"]["swaps"])
    assert record["config"]["objective"] == "powerclip" and record["init_sha256"] == record["lineage"][-1]["sha256"]
    embedded = json.loads(checkpoints.EMBEDDED_CHECKPOINT.with_suffix(".json").read_text())
    assert record["lineage"] == embedded["lineage"]  # the same stages before the last: only the last one's loss differs
    assert {k: v for k, v in record["config"].items() if k not in ("objective", "powerclip_lambda")} == \
        {k: v for k, v in embedded["config"].items() if k not in ("objective", "powerclip_lambda")}


def test_a_lineage_links_each_warm_start_by_its_weights_and_the_card_names_each(tmp_path):
    """A model made by several warm starts (``scripts/retrain_varied.sh``) keeps each in its record, each link checked:
    a stage that did not start from the weights before it is refused."""
    import hashlib

    from explorer.training.card import init_line
    from scripts.record_lineage import lineage

    weights = [tmp_path / f"world-clip-{name}.safetensors" for name in ("former", "a", "b")]
    for i, path in enumerate(weights):
        path.write_bytes(bytes([i]) * 64)
    sha = [hashlib.sha256(p.read_bytes()).hexdigest() for p in weights]
    stages = []
    for i, seed in ((1, 1), (2, 2)):
        record = tmp_path / f"stage{i}.json"
        record.write_text(json.dumps({"init_sha256": sha[i - 1], "wall_s": 600.0 * i,
                                      "config": {"steps": 1000 * i, "seed": seed}}))
        stages.append((record, weights[i]))
    run = {"init_sha256": sha[2], "wall_s": 900.0}
    chain = lineage(weights[0], "the model shipped before", "scripts/retrain_varied.sh", stages, run)
    assert [s["sha256"] for s in chain] == sha and [s.get("run") for s in chain] == [None, "a", "b"]
    line = init_line({"init": "runs/varied/world-clip-b.safetensors"}, {**run, "lineage": chain})
    assert "the model shipped before" in line and "2 warm starts" in line
    assert "a: 1000 steps, `--seed 1`, 10.0 min" in line and "b: 2000 steps, `--seed 2`, 20.0 min" in line
    assert "the warm starts took 45.0 min" in line  # 10 + 20 and this run's 15
    with pytest.raises(ValueError, match="did not start from the weights before it"):
        lineage(weights[0], "x", "y", stages[1:], run)
    with pytest.raises(ValueError, match="the record did not start from the last stage"):
        lineage(weights[0], "x", "y", stages[:1], run)
