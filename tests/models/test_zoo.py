"""The compositional model zoo: an entry loads from a model hub cache the test builds (random weights in the hub's
open_clip format) with the hub unreachable, and the menu marks what cannot load here, saying why and how to get it."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from explorer.engine.model_pool import model_choices, spec_for_choice
from explorer.models import zoo
from explorer.models.model_errors import ModelUnavailable

ROOT = Path(__file__).resolve().parents[2]
TINY = {"embed_dim": 32,
        "vision_cfg": {"image_size": 32, "layers": 1, "width": 64, "patch_size": 16, "head_width": 32},
        "text_cfg": {"context_length": 77, "vocab_size": 49408, "width": 64, "heads": 2, "layers": 1}}
CLIC = "nmndeep/CLIC-ViT-B-32-224-CogVLM"


def hub_cache(root: Path, repo: str) -> Path:
    """A huggingface cache holding ``repo`` as the hub serves an open_clip model: ``open_clip_config.json`` and
    ``open_clip_pytorch_model.bin`` (a tiny CLIP's random weights) in a snapshot that ``refs/main`` names."""
    from open_clip.model import CLIP

    torch.manual_seed(0)
    model = CLIP(TINY["embed_dim"], TINY["vision_cfg"], TINY["text_cfg"])
    folder = root / f"models--{repo.replace('/', '--')}"
    commit = "0" * 40
    snapshot = folder / "snapshots" / commit
    snapshot.mkdir(parents=True)
    (folder / "refs").mkdir()
    (folder / "refs" / "main").write_text(commit)
    (snapshot / "open_clip_config.json").write_text(json.dumps({"model_cfg": TINY, "preprocess_cfg": {
        "mean": [0.48145466, 0.4578275, 0.40821073], "std": [0.26862954, 0.26130258, 0.27577711]}}))
    torch.save(model.state_dict(), snapshot / "open_clip_pytorch_model.bin")
    return snapshot / "open_clip_pytorch_model.bin"


PROBE = """
import json, torch
from PIL import Image
from explorer.engine.model_pool import spec_for_name
from explorer.models import zoo
from explorer.models.loader import load_encoder
encoder = load_encoder(spec_for_name("CLIC", "cpu"))
saved = torch.load({weights!r}, weights_only=True)
state = encoder.model.state_dict()
same = set(state) == set(saved) and all(torch.equal(state[k].cpu(), saved[k]) for k in saved)
image = encoder.embed_images([Image.new("RGB", (48, 32), (200, 30, 30))])
text = encoder.embed_texts(["a red square"])
print(json.dumps({{"mark": zoo.availability("CLIC")[0], "label": encoder.label, "same": same,
                  "shapes": [list(image.shape), list(text.shape)], "image_size": encoder.image_size}}))
"""


def test_a_zoo_entry_loads_from_a_hub_cache_with_the_hub_unreachable(tmp_path):
    weights = hub_cache(tmp_path / "hub", CLIC)
    env = {**os.environ, "HF_HUB_CACHE": str(tmp_path / "hub"), "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path),
           "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", PROBE.format(weights=str(weights))], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    found = json.loads(out.stdout.strip().splitlines()[-1])
    assert found == {"mark": zoo.CACHED, "label": f"hf-hub:{CLIC}", "same": True, "shapes": [[1, 32], [1, 32]],
                     "image_size": 32}


HUB_FILE_PROBE = """
import json, torch
from dataclasses import replace
from explorer.engine.model_pool import spec_for_name
from explorer.models import zoo
from explorer.models.loader import load_encoder
zoo.ZOO["FSC-CLIP"] = replace(zoo.ZOO["FSC-CLIP"], model="world-clip")  # the small world model in ViT-B-32's place
encoder = load_encoder(spec_for_name("FSC-CLIP", "cpu"))
saved = torch.load({weights!r}, weights_only=True)["state_dict"]
state = encoder.model.state_dict()
print(json.dumps({{"mark": zoo.availability("FSC-CLIP")[0], "same": all(torch.equal(state[k[len("module."):]], v)
                                                                       for k, v in saved.items())}}))
"""


def test_a_zoo_weights_file_on_the_hub_loads_from_the_cache_in_open_clip_training_s_format(tmp_path):
    """FSC-CLIP's file, an open_clip training checkpoint (``{"epoch", "state_dict": {"module." + key: ...}}``),
    cached under its repository and file name, random weights of the small world model standing in for ViT-B-32."""
    import open_clip

    from explorer.models.encoders import register_configs

    register_configs()
    torch.manual_seed(1)
    state = open_clip.create_model("world-clip").state_dict()
    folder = tmp_path / "hub" / "models--ytaek-oh--fsc-clip"
    snapshot = folder / "snapshots" / ("1" * 40)
    snapshot.mkdir(parents=True)
    (folder / "refs").mkdir()
    (folder / "refs" / "main").write_text("1" * 40)
    weights = snapshot / "coco_fsc-clip-ViT-B-32.pt"
    torch.save({"epoch": 5, "state_dict": {f"module.{k}": v for k, v in state.items()}}, weights)
    env = {**os.environ, "HF_HUB_CACHE": str(tmp_path / "hub"), "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path),
           "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", HUB_FILE_PROBE.format(weights=str(weights))], capture_output=True,
                         text=True, env=env, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {"mark": zoo.CACHED, "same": True}


def test_the_menu_marks_an_entry_that_cannot_load_and_says_why(tmp_path, monkeypatch):
    from dataclasses import replace

    from explorer.core import settings

    monkeypatch.setattr(settings, "_current", replace(settings.current(), zoo_dir=str(tmp_path)))
    assert set(zoo.ZOO) <= set(model_choices())  # every entry in the menu, by its published name
    assert zoo.menu_label("DAC-LLM") == "DAC-LLM \u00b7 cannot load here"
    with pytest.raises(ModelUnavailable, match="DAC-LLM cannot load here: .*LoRA on a fork.*SivanDoveh/DAC"):
        spec_for_choice("DAC-LLM")
    assert zoo.availability("NegCLIP")[0] == zoo.CANNOT  # its file is not in the zoo folder yet
    with pytest.raises(ModelUnavailable, match="no negclip.pth in the zoo folder .the setting zoo_dir, "
                                               "EXPLORER_ZOO_DIR.: download negclip.pth") as err:
        spec_for_choice("NegCLIP")
    assert str(tmp_path) not in str(err.value)  # the setting named, never the server's folder
    (tmp_path / "negclip.pth").write_bytes(b"weights")
    assert zoo.menu_label("NegCLIP") == "NegCLIP \u00b7 a local file"
    assert spec_for_choice("NegCLIP").checkpoint == tmp_path / "negclip.pth"
    assert spec_for_choice("OpenAI ViT-B-32").pretrained == "openai"


def test_each_entry_with_figures_names_their_source():
    for entry in zoo.ENTRIES:
        assert (entry.sugarcrepe is None) == (entry.winoground is None) == (not entry.source), entry.name
    assert (zoo.ZOO["NegCLIP"].sugarcrepe, zoo.ZOO["NegCLIP"].winoground) == (83.7, 8.0)


def test_the_docs_record_holds_the_zoo_as_it_is():
    from dataclasses import asdict

    record = json.loads((ROOT / "docs" / "results" / "zoo" / "reported.json").read_text())
    assert record["entries"] == [asdict(e) for e in zoo.ENTRIES]


def test_every_entry_that_cannot_load_here_says_so_at_once_in_its_own_sentence(tmp_path, monkeypatch):
    """Offline and with an empty zoo folder: each entry but those open_clip loads by tag refuses in its own sentence
    (never "Unknown model"), a hub entry at once and pointing to --checkpoint, and no message names a server path."""
    import time
    from dataclasses import replace

    import huggingface_hub.constants

    from explorer.core import settings
    from explorer.engine.model_pool import spec_for_name

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(settings, "_current", replace(settings.current(), zoo_dir=str(tmp_path / "zoo")))
    said = {}
    for entry in zoo.ENTRIES:
        if entry.how == "open_clip":
            continue  # a pretrained tag: said by the loader (test_encoders), not the zoo
        start = time.perf_counter()
        with pytest.raises(ModelUnavailable) as err:
            spec_for_name(entry.name, "cpu")
        said[entry.name] = (str(err.value), time.perf_counter() - start)
    for name, (message, seconds) in said.items():
        assert message.startswith(f"{name} ") and "Unknown model" not in message, message
        assert str(tmp_path) not in message and str(Path.home()) not in message, message
        assert seconds < 5, (name, seconds)
    for name in ("FSC-CLIP", "CLIC", "SPEC-CLIP"):
        assert "needs the model hub, which cannot be reached from here" in said[name][0]
        assert said[name][0].endswith("pass the file with --checkpoint."), said[name][0]
    assert "cannot load here: no negclip.pth in the zoo folder" in said["NegCLIP"][0]
