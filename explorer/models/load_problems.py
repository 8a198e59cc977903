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
    raise ModelUnavailable(
        f"The pretrained weights '{tag}' of '{name}' are not cached here and the model hub cannot be "
        f"reached: download them on a machine with access and pass the file with --checkpoint."
    )


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (200 characters at most), else its type's name."""
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else type(exc).__name__


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
    return f"its weights do not fit this model ({type(exc).__name__}: {first_line(exc)})"
