"""One way to load an encoder: ``load_encoder(EncoderSpec(...))``, for the CLI, the app, the model pool and the
methods."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from explorer.models import checkpoints
from explorer.models.model_errors import ModelUnavailable

if TYPE_CHECKING:
    from explorer.models.encoders import DualEncoder


@dataclass(frozen=True)
class EncoderSpec:
    """What names an encoder; all None is the embedded ``world-clip``.

    ``checkpoint`` is a weights file or the name of a shipped checkpoint (``explorer.models.checkpoints``); a shipped one
    brings its own open_clip model name unless ``model`` is given.
    """

    model: str | None = None
    pretrained: str | None = None
    checkpoint: str | Path | None = None
    device: str | None = None
    precision: str = "auto"  # explorer.models.tower.PRECISIONS
    compile: bool = False


def resolve(checkpoint: str | Path | None) -> tuple[Path | None, checkpoints.Checkpoint | None]:
    """A weights path and its registry entry (if it has one) from a path or a registry name."""
    if checkpoint is None:
        return None, None
    if isinstance(checkpoint, str) and checkpoint in checkpoints.REGISTRY:
        entry = checkpoints.REGISTRY[checkpoint]
        return entry.path, entry
    path = Path(checkpoint)
    if not path.exists() and path.suffix == "" and len(path.parts) == 1:  # a bare word: meant as a name
        checkpoints.get(str(checkpoint))  # raises, listing the known names
    return path, checkpoints.by_path(path)


def _named(spec: EncoderSpec) -> tuple[str | None, Path | None]:
    """The open_clip model and the weights file ``spec`` names; ``ModelUnavailable`` for a shipped name that is no
    encoder or no shipped name at all."""
    try:
        path, entry = resolve(spec.checkpoint)
    except checkpoints.UnknownCheckpoint as exc:
        raise ModelUnavailable(str(exc)) from exc
    if entry is not None and not entry.is_encoder:
        raise ModelUnavailable(f"'{entry.name}' is an {entry.kind}, not an encoder: load it with its scoring method "
                               f"({checkpoints.ALIGN_VARIANTS[entry.variant]}) over {entry.model}.")
    return spec.model or (entry.model if entry is not None else None), path


def load_encoder(spec: EncoderSpec = EncoderSpec()) -> DualEncoder:
    """The encoder ``spec`` names; ``ModelUnavailable`` (one sentence for the user) when it cannot be loaded."""
    from explorer.models.encoders import DualEncoder  # torch and open_clip: only once a model is wanted

    model, path = _named(spec)
    return DualEncoder(model, spec.pretrained, path, spec.device, precision=spec.precision, compile=spec.compile)


def check_encoder(spec: EncoderSpec) -> None:
    """Fail at once, in the model's own sentence, where ``spec`` would not load: ``load_encoder``'s checks, and its
    weights file opened without building the model (a second, not a model's load), so that a run checks every model
    before it scores the first item."""
    from explorer.models.load_problems import check_loadable, open_weights
    from explorer.models.model_configs import EMBEDDED_MODEL, register_configs

    model, path = _named(spec)
    register_configs()
    if model is None and spec.pretrained is None and path is None:
        path = checkpoints.EMBEDDED_CHECKPOINT
    check_loadable(model or EMBEDDED_MODEL, spec.pretrained, path)
    if path is not None:
        open_weights(path, model or EMBEDDED_MODEL)
