"""Why a model will not load, said in one sentence before open_clip's own error could: pretrained weights neither
cached nor reachable, or a weights file that is not one or does not fit the model."""

from __future__ import annotations

import os
import pickle
import re
import socket
from pathlib import Path

import open_clip
from huggingface_hub import try_to_load_from_cache

from explorer.models.model_errors import ModelUnavailable

TRUNCATED = ("failed finding central directory", "PytorchStreamReader failed", "Ran out of input",
             "unexpected EOF", "MetadataIncompleteBuffer")  # torch's and safetensors' words for it


def hub_resolves(host: str = "huggingface.co") -> bool:
    """Whether the model hub's name resolves here (never while huggingface_hub is told to stay offline)."""
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes"):  # huggingface_hub's own, not a setting
        return False
    try:
        socket.getaddrinfo(host, 443)
        return True
    except OSError:
        return False


def check_weights_reachable(name: str, tag: str) -> None:
    """Fail at once, in one sentence, when pretrained weights are neither cached nor fetchable."""
    if Path(tag).is_file():
        return
    cfg = open_clip.get_pretrained_cfg(name, tag)
    if not cfg:
        known = ", ".join(open_clip.list_pretrained_tags_by_model(name)) or "none"
        raise ModelUnavailable(f"'{tag}' is not a pretrained tag of '{name}' (known tags: {known}).")
    if hub_resolves():
        return
    # open_clip's hf_hub entries are 'org/repo/' (its default file names) or 'org/repo/file.bin' (that file)
    repo, file = os.path.split(cfg.get("hf_hub", ""))
    files = (file,) if file else ("open_clip_model.safetensors", "open_clip_pytorch_model.bin")
    if repo and any(isinstance(try_to_load_from_cache(repo, f), str) for f in files):
        return
    raise ModelUnavailable(f"{name} / {tag} needs the model hub, which cannot be reached from here, and its "
                           f"weights are not cached: download them where the hub can be reached and pass the file "
                           f"with --checkpoint.")


def check_loadable(name: str, pretrained: str | None, checkpoint: Path | None, hint: str = "") -> None:
    """What is checked before open_clip builds a model, each failing in one sentence: a model name open_clip knows,
    the weights file there (``hint``: how to make it), pretrained weights cached or reachable."""
    if not name.startswith("hf-hub:") and name not in open_clip.list_models():
        raise ModelUnavailable(f"Unknown model '{name}': choose one of open_clip.list_models(), e.g. ViT-B-32.")
    if checkpoint is not None and not checkpoint.is_file():
        raise ModelUnavailable(f"No checkpoint file {checkpoint.name}: nothing at the path given{hint}.")
    if pretrained is not None and checkpoint is None:
        check_weights_reachable(name, pretrained)


def open_weights(path: Path, name: str) -> None:
    """Open a weights file as open_clip will (safetensors, else torch's safe loading), its tensors mapped rather
    than read; ``ModelUnavailable`` saying what is wrong with it (cut short, not weights, code inside)."""
    import torch

    try:
        if path.suffix == ".safetensors":
            from safetensors import safe_open

            with safe_open(str(path), "pt") as weights:
                weights.keys()
            return
        try:
            torch.load(path, map_location="cpu", weights_only=True, mmap=True)
        except RuntimeError as exc:
            if "mmap can only be used" not in str(exc):
                raise
            torch.load(path, map_location="cpu", weights_only=True)  # torch's older format: read whole
    except Exception as exc:
        raise ModelUnavailable(f"Could not load the checkpoint file {path.name} into '{name}': "
                               f"{checkpoint_problem(exc)}.") from exc


def first_line(exc: BaseException) -> str:
    """The first sentence of an exception's message where it is whole within 200 characters, else its type's name:
    never a sentence cut short."""
    text = str(exc).strip()
    line = text.splitlines()[0] if text else ""
    sentence = re.split(r"(?<=[.!?])\s", line, maxsplit=1)[0].rstrip(".")
    return sentence if sentence and len(sentence) <= 200 else type(exc).__name__


def checkpoint_problem(exc: BaseException) -> str:
    """What is wrong with a weights file, in words, from the exception loading it raised (torch's own message for a
    refused pickle is advice to load it unsafely, which this app never does)."""
    text = str(exc)
    if isinstance(exc, pickle.UnpicklingError) or "Weights only load failed" in text:
        if "GLOBAL" in text:  # a pickle naming a callable: it would run code
            found = re.search(r"GLOBAL ([\w.]+)", text)
            what = f" ({found.group(1)})" if found else ""
            return (f"it holds Python objects besides tensors{what}, which could run code, so it is refused; save "
                    f"the model's state_dict alone, or as safetensors")
        return "it is not a PyTorch or safetensors weights file (it cannot be read as one)"
    if any(mark in text for mark in TRUNCATED):
        return ("it is cut short or damaged: the file ends before its data does (a download or copy that did not "
                "finish?)")
    if type(exc).__name__ == "SafetensorError":
        return f"it is not a readable safetensors file ({first_line(exc)})"
    if "Error(s) in loading state_dict" in text:
        missing = re.search(r"Missing key\(s\) in state_dict: (.*)", text)
        unexpected = re.search(r"Unexpected key\(s\) in state_dict: (.*)", text)
        count = lambda m: len(re.findall(r'"[^"]+"', m.group(1))) if m else 0  # noqa: E731
        shape = re.search(r"size mismatch for ([^:]+)", text)
        detail = f"a size mismatch for {shape.group(1)}" if shape else \
            f"{count(missing)} of the model's weights missing from it, {count(unexpected)} unknown to the model"
        return f"its weights do not fit this model ({detail}; saved from another model?)"
    return f"its weights do not fit this model or the file is damaged ({first_line(exc)})"
