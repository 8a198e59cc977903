"""The embedded model's open_clip config, and the folder of the project's checkpoints (``explorer.models.checkpoints``).

The checkpoints lie in the repository's ``checkpoints/``, where ``train-world`` and ``train-align`` write the shipped
weights; ``pip install .`` ships them as package data inside the package (``explorer/shipped/checkpoints/``, mapped
from the root folder in pyproject.toml), and ``checkpoint_dir`` finds them in either place."""

from __future__ import annotations

from pathlib import Path

EMBEDDED_MODEL = "world-clip"
CONFIG_DIR = Path(__file__).parent / "configs"
CHECKPOINTS_FOLDER = "checkpoints"  # as the repository names it, from its root


def checkpoint_dir() -> Path:
    """The shipped checkpoints' folder: inside the package where it is installed (pyproject.toml's package-dir puts
    the root's checkpoints/ there), else the checkout's root folder."""
    package = Path(__file__).resolve().parents[1]  # explorer/
    installed = package / "shipped" / "checkpoints"
    return installed if installed.is_dir() else package.parent / CHECKPOINTS_FOLDER


CHECKPOINT_DIR = checkpoint_dir()

_registered = False


def register_configs() -> None:
    """Make the project's model configs (``world-clip``) known to open_clip's factory."""
    global _registered
    if not _registered:
        import open_clip  # here, not at the top: the command line's --help and parsing never load it

        open_clip.add_model_config(CONFIG_DIR)
        _registered = True
