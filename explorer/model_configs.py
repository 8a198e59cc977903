"""The embedded model's open_clip config, and the folder of the project's checkpoints (``explorer.checkpoints``).

The checkpoints are package data (``explorer/shipped/checkpoints/``): an installed ``binding-explorer`` finds them
inside the package, as a checkout does; ``train-world`` and ``train-align`` write the shipped weights there."""

from __future__ import annotations

from pathlib import Path

EMBEDDED_MODEL = "world-clip"
CONFIG_DIR = Path(__file__).parent / "configs"
CHECKPOINT_DIR = Path(__file__).resolve().parent / "shipped" / "checkpoints"

_registered = False


def register_configs() -> None:
    """Make the project's model configs (``world-clip``) known to open_clip's factory."""
    global _registered
    if not _registered:
        import open_clip  # here, not at the top: the command line's --help and parsing never load it

        open_clip.add_model_config(CONFIG_DIR)
        _registered = True
