"""NegCLIP's and CE-CLIP's published weights files, built here with random weights in their layout (nothing
downloaded): each an open_clip training checkpoint (``{"epoch", "name", "state_dict": {"module." + key: ...},
"optimizer"}``, CE-CLIP's with the AMP ``"scaler"``), whose optimizer holds numpy scalars (open_clip's cosine
schedule writes each learning rate as ``numpy.float64``) pickled under numpy 1's name ``numpy.core.multiarray``.
Each loads by its zoo entry into exactly its weights; a file holding anything that could run code is refused."""

import io
import pickle
import zipfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from explorer.engine.model_pool import spec_for_choice
from explorer.models import zoo
from explorer.models.loader import load_encoder
from explorer.models.model_errors import ModelUnavailable

NUMPY_2, NUMPY_1 = b"numpy._core.multiarray\nscalar\n", b"numpy.core.multiarray\nscalar\n"


def training_checkpoint(state: dict, path: Path, scaler: bool) -> Path:
    """``state`` saved as open_clip's training script saves it under DDP, with an AdamW state whose learning rates are
    numpy scalars, its pickle naming numpy's module as numpy 1 did."""
    params = list(state)
    optimizer = {"state": {i: {"step": torch.tensor(5.0), "exp_avg": torch.zeros(1), "exp_avg_sq": torch.zeros(1)}
                           for i in range(2)},
                 "param_groups": [{"lr": np.float64(1e-6) * 0.5 * (1 + np.cos(np.pi * 0.3)), "betas": (0.9, 0.98),
                                   "eps": 1e-6, "weight_decay": wd, "amsgrad": False, "initial_lr": 1e-6,
                                   "params": list(range(len(params)))} for wd in (0.0, 0.1)]}
    saved = {"epoch": 5, "name": "2023_01_01-00_00_00-model_ViT-B-32-lr_1e-06-b_256-j_4-p_amp",
             "state_dict": {f"module.{k}": v for k, v in state.items()}, "optimizer": optimizer}
    if scaler:
        saved["scaler"] = {"scale": 65536.0, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 2000,
                           "_growth_tracker": 17}
    buffer = io.BytesIO()
    torch.save(saved, buffer)
    with zipfile.ZipFile(buffer) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as out:
        for info in source.infolist():
            data = source.read(info)
            if info.filename.endswith("data.pkl"):
                assert NUMPY_2 in data
                data = data.replace(NUMPY_2, NUMPY_1)  # GLOBAL names are newline-ended: no length to mend
            out.writestr(info, data)
    return path


@pytest.fixture
def world_state():
    import open_clip

    from explorer.models.encoders import register_configs

    register_configs()
    torch.manual_seed(2)
    return {k: v.clone() for k, v in open_clip.create_model("world-clip").state_dict().items()}


@pytest.mark.parametrize("name, scaler", [("NegCLIP", False), ("CE-CLIP", True)])
def test_a_published_training_checkpoint_loads_by_its_zoo_entry_into_its_weights(name, scaler, world_state, tmp_path,
                                                                                 monkeypatch):
    from explorer.core import settings

    monkeypatch.setattr(settings, "_current", replace(settings.current(), zoo_dir=str(tmp_path)))
    monkeypatch.setitem(zoo.ZOO, name, replace(zoo.ZOO[name], model="world-clip"))  # small, in ViT-B-32's place
    training_checkpoint(world_state, tmp_path / zoo.ZOO[name].weights, scaler)
    with pytest.raises(pickle.UnpicklingError):  # as published, torch's safe loading refuses it
        torch.load(tmp_path / zoo.ZOO[name].weights, weights_only=True)
    assert zoo.availability(name)[0] == zoo.LOCAL
    encoder = load_encoder(spec_for_choice(name, "cpu"))
    loaded = encoder.model.state_dict()
    assert set(loaded) == set(world_state)
    assert all(torch.equal(loaded[k].cpu(), v) for k, v in world_state.items())
    again = spec_for_choice(name, "cpu").checkpoint  # converted once, read as it is from then on
    assert again == tmp_path / "converted" / f"{zoo.ZOO[name].weights}.safetensors"
    assert again.stat().st_mtime_ns == spec_for_choice(name, "cpu").checkpoint.stat().st_mtime_ns


def test_a_checkpoint_holding_code_besides_numpy_scalars_is_refused_in_a_sentence(world_state, tmp_path,
                                                                                 monkeypatch):
    from explorer.core import settings

    monkeypatch.setattr(settings, "_current", replace(settings.current(), zoo_dir=str(tmp_path)))
    torch.save({"state_dict": world_state, "lr": np.float64(0.1), "args": Path("x")}, tmp_path / "negclip.pth")
    with pytest.raises(ModelUnavailable, match="negclip.pth: it holds Python objects besides tensors .*pathlib"):
        spec_for_choice("NegCLIP", "cpu")
    assert not (tmp_path / "converted").exists()
    torch.save({"state_dict": world_state, "args": Path("x")}, tmp_path / "negclip.pth")  # no numpy: the loader's
    with pytest.raises(ModelUnavailable, match="negclip.pth into 'ViT-B-32': it holds Python objects besides tens"):
        load_encoder(spec_for_choice("NegCLIP", "cpu"))


def test_spec_clip_s_hub_folder_loads_from_the_cache_as_its_readme_has_open_clip_read_it(world_state, tmp_path,
                                                                                         monkeypatch):
    """SPEC-CLIP's README downloads its hub repository as a folder and hands the folder to open_clip with
    ``load_weights_only=False``: the folder's weights file, a training checkpoint, is found as open_clip finds it."""
    import huggingface_hub.constants

    from explorer.core import settings

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(settings, "_current", replace(settings.current(), zoo_dir=str(tmp_path / "zoo")))
    monkeypatch.setitem(zoo.ZOO, "SPEC-CLIP", replace(zoo.ZOO["SPEC-CLIP"], model="world-clip"))
    assert zoo.availability("SPEC-CLIP") == (zoo.HUB, zoo.ZOO["SPEC-CLIP"].get)  # not cached: needs the hub
    with pytest.raises(ModelUnavailable, match="SPEC-CLIP needs the model hub"):
        spec_for_choice("SPEC-CLIP", "cpu")
    folder = tmp_path / "hub" / "models--wjpoom--SPEC-CLIP-ViT-B-32"
    snapshot = folder / "snapshots" / ("2" * 40)
    snapshot.mkdir(parents=True)
    (folder / "refs").mkdir()
    (folder / "refs" / "main").write_text("2" * 40)
    (snapshot / "README.md").write_text("SPEC-CLIP")
    training_checkpoint(world_state, snapshot / "open_clip_pytorch_model.bin", scaler=True)
    assert zoo.availability("SPEC-CLIP") == (zoo.CACHED, str(snapshot / "open_clip_pytorch_model.bin"))
    loaded = load_encoder(spec_for_choice("SPEC-CLIP", "cpu")).model.state_dict()
    assert all(torch.equal(loaded[k].cpu(), v) for k, v in world_state.items()) and set(loaded) == set(world_state)
