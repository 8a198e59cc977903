"""The embedded model's open_clip config, and the folder of the project's checkpoints (``explorer.checkpoints``)."""

from __future__ import annotations

from pathlib import Path

import open_clip

EMBEDDED_MODEL = "world-clip"
CONFIG_DIR = Path(__file__).parent / "configs"
CHECKPOINT_DIR = Path(__file__).resolve().parent.parent / "checkpoints"

_registered = False


def register_configs() -> None:
    """Make the project's model configs (``world-clip``) known to open_clip's factory."""
    global _registered
    if not _registered:
        open_clip.add_model_config(CONFIG_DIR)
        _registered = True
