"""The model menu as a reader needs it: each entry marked by where its weights come from, those that load here
(shipped with the app, or already in this machine's cache) before those that need the model hub."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

import open_clip
from huggingface_hub import try_to_load_from_cache

from explorer.engine.model_pool import EMBEDDED_CHOICE, project_checkpoints
from explorer.models import zoo

SHIPPED, CACHED, HUB = "shipped with the app", zoo.CACHED, zoo.HUB
OPENAI_CACHE = Path("~/.cache/clip").expanduser()  # where open_clip keeps weights it fetched by URL


def _in_cache(name: str, tag: str) -> bool:
    """Whether the weights of open_clip's ``name`` / ``tag`` are in this machine's huggingface or open_clip cache."""
    cfg = open_clip.get_pretrained_cfg(name, tag) or {}
    repo, file = os.path.split(cfg.get("hf_hub", ""))
    names = (file,) if file else ("open_clip_model.safetensors", "open_clip_pytorch_model.bin")
    if repo and any(isinstance(try_to_load_from_cache(repo, n), str) for n in names):
        return True
    url = cfg.get("url", "")
    return bool(url) and (OPENAI_CACHE / os.path.basename(url)).is_file()


def where(choice: str) -> str:
    """Where a menu entry's weights come from: ``SHIPPED``, ``CACHED`` or ``HUB``; a zoo entry's as the zoo says
    (also ``zoo.LOCAL``, a weights file in the zoo's folder, or ``zoo.CANNOT``)."""
    if choice == EMBEDDED_CHOICE or choice in project_checkpoints():
        return SHIPPED
    if choice in zoo.ZOO:
        return zoo.availability(choice)[0]
    name, _, tag = (part.strip() for part in choice.partition("/"))
    return CACHED if tag and _in_cache(name, tag) else HUB


def labelled(choices: Sequence[str]) -> list[tuple[str, str]]:
    """The menu's (label, entry) pairs: each entry with its mark, those that load here first, in their order."""
    marked = [(choice, where(choice)) for choice in choices]
    order = {SHIPPED: 0, CACHED: 1, zoo.LOCAL: 1, HUB: 2, zoo.CANNOT: 3}
    return [(f"{choice} \u00b7 {mark}", choice) for choice, mark in sorted(marked, key=lambda m: order[m[1]])]
