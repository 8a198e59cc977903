"""The authors' LeGrad (``legrad-torch``'s ``LeWrapper.compute_legrad_clip``, or ``compute_legrad_siglip`` for a timm
tower with an attention pool) on the inputs ``legrad_reference.py`` saved: run in an environment of its own with the authors' pinned open_clip, as

    python -m venv /work/legrad-venv
    /work/legrad-venv/bin/pip install --no-deps legrad-torch==1.1 open_clip_torch==2.23.0
    /work/legrad-venv/bin/pip install matplotlib opencv-python-headless einops ftfy regex
    (torch, torchvision and timm: the project's, e.g. a .pth file naming its venv's site-packages)
    /work/legrad-venv/bin/python scripts/legrad_authors.py INPUTS.pt OUTPUTS.pt

Each model is built by that open_clip from the config saved with it (world-clip's without ``block_type: custom``,
which it does not know: the same plain pre-norm blocks, torch's own attention) and loaded with the saved weights,
strictly. The wrapper's ``patch_size`` is set to 1 so that its last step, a bilinear upsampling by the patch size,
keeps the patch grid the project's map is compared on. ``compute_legrad_siglip`` takes one image and sums its score
over the texts given, so it is called once per text, with its default correction; its neutral prompt's feature is
set from the saved token ids (the package would fetch SigLIP's tokenizer for it). This file imports nothing of the
project.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import open_clip
import torch
import torch.nn.functional as F
from open_clip.version import __version__ as open_clip_version


def build(entry: dict) -> torch.nn.Module:
    """The model of one saved entry, in this open_clip, with its weights."""
    name = entry["config_name"]
    if entry.get("config") is not None:
        folder = Path(tempfile.mkdtemp())
        (folder / f"{name}.json").write_text(json.dumps(entry["config"]))
        open_clip.add_model_config(folder)
    model = open_clip.create_model(name, pretrained=None)
    model.load_state_dict(torch.load(entry["weights"], map_location="cpu"), strict=True)
    return model.eval()


def main(inputs: str, outputs: str) -> None:
    from legrad import LeWrapper  # the authors' package: only in their environment

    saved = torch.load(inputs, map_location="cpu")
    out: dict = {"open_clip": open_clip_version, "legrad": "legrad-torch 1.1", "models": {}}
    for label, entry in saved["models"].items():
        model = build(entry)
        with torch.no_grad():
            plain = [model.encode_image(run["pixels"]) for run in entry["runs"]]
        wrapper = LeWrapper(model, layer_index=entry["layer_index"])
        wrapper.patch_size = 1  # the map on the patch grid (the last upsampling is by this factor)
        siglip = wrapper.model_type == "timm_siglip"
        if siglip:
            with torch.no_grad():
                wrapper.empty_embedding = F.normalize(wrapper.encode_text(entry["neutral_ids"]), dim=-1).t()
        maps, features = [], []
        for run, before in zip(entry["runs"], plain):
            with torch.no_grad():
                texts = F.normalize(wrapper.encode_text(run["ids"]), dim=-1)
            if siglip:  # each (1, 1, h, w)
                found = torch.cat([wrapper.compute_legrad_siglip(text[None], image=run["pixels"])[0] for text in texts])
            else:
                found = wrapper.compute_legrad_clip(texts, image=run["pixels"])[0]  # (texts, h, w)
            maps.append(found.detach().reshape(len(run["ids"]), -1))
            features.append(before)
        out["models"][label] = {"maps": maps, "image_features": features,
                                "function": "compute_legrad_siglip" if siglip else "compute_legrad_clip"}
    torch.save(out, outputs)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("inputs", help="the inputs legrad_reference.py saved (.pt)")
    parser.add_argument("outputs", help="where to save the authors' maps (.pt)")
    args = parser.parse_args()
    main(args.inputs, args.outputs)
