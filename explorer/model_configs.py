"""The embedded model's open_clip config (`world-clip`), registered with open_clip, and where the project's weights live."""

from __future__ import annotations

from pathlib import Path

import open_clip

EMBEDDED_MODEL = "world-clip"
CONFIG_DIR = Path(__file__).parent / "configs"
CHECKPOINT_DIR = Path(__file__).resolve().parent.parent / "checkpoints"
EMBEDDED_CHECKPOINT = CHECKPOINT_DIR / f"{EMBEDDED_MODEL}.safetensors"

_registered = False


def register_configs() -> None:
    """Make the project's model configs (``world-clip``) known to open_clip's factory."""
    global _registered
    if not _registered:
        open_clip.add_model_config(CONFIG_DIR)
        _registered = True
