"""The project's shipped checkpoints, by name: what each one is, its weights, its training record and its card.

The one place that knows where a checkpoint lives. Everything else asks by name (``world-clip-powerclip``), by
alignment variant (``for_variant("local")``) or by path (``by_path``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from explorer.models.model_configs import CHECKPOINT_DIR, EMBEDDED_MODEL

ENCODER = "encoder"  # a dual encoder trained from scratch: a model menu entry
ALIGNER = "aligner"  # an alignment transformer over a frozen encoder's features (TFLocal / TFGlobal)
FINETUNED = "finetuned encoder"  # a dual encoder fine-tuned end to end (the baseline method's weights)

# train-align's variants, each with the scoring method that uses its weights: listed here only.
ALIGN_VARIANTS = {"local": "tflocal", "global": "tfglobal", "finetune": "finetune"}


class UnknownCheckpoint(ValueError):
    """A checkpoint name that is not in the registry; the message lists the known ones."""


@dataclass(frozen=True)
class Checkpoint:
    """One shipped checkpoint: ``path`` (safetensors), ``record`` (its training record) and ``card`` beside it."""

    name: str
    kind: str
    model: str = EMBEDDED_MODEL  # the open_clip config of the encoder it is (or runs over)
    variant: str | None = None  # train-align's variant, for aligners and the fine-tuned encoder

    @property
    def path(self) -> Path:
        return CHECKPOINT_DIR / f"{self.name}.safetensors"

    @property
    def record_path(self) -> Path:
        return self.path.with_suffix(".json")

    @property
    def card(self) -> Path:
        return self.path.with_suffix(".md")

    @property
    def record(self) -> dict:
        """The training record ``train-world`` / ``train-align`` wrote beside the weights."""
        return json.loads(self.record_path.read_text())

    @property
    def config(self) -> dict:
        """The training config the weights were made with, as recorded."""
        return self.record["config"]

    @property
    def is_encoder(self) -> bool:
        """Whether the weights are a whole dual encoder (loadable with ``load_encoder``)."""
        return self.kind in (ENCODER, FINETUNED)


EMBEDDED = Checkpoint(EMBEDDED_MODEL, ENCODER)
EMBEDDED_CHECKPOINT = EMBEDDED.path
REGISTRY: dict[str, Checkpoint] = {c.name: c for c in (
    EMBEDDED,
    Checkpoint(f"{EMBEDDED_MODEL}-powerclip", ENCODER),
    *(Checkpoint(f"{EMBEDDED_MODEL}-{method}", FINETUNED if variant == "finetune" else ALIGNER, variant=variant)
      for variant, method in ALIGN_VARIANTS.items()),
)}


def get(name: str) -> Checkpoint:
    """The registry entry called ``name``; ``UnknownCheckpoint`` naming the known ones otherwise."""
    if name not in REGISTRY:
        raise UnknownCheckpoint(f"Unknown checkpoint '{name}': known ones are {', '.join(REGISTRY)}, "
                                f"or pass the path of a weights file.")
    return REGISTRY[name]


def for_variant(variant: str) -> Checkpoint:
    """The embedded model's shipped weights for one of train-align's variants."""
    if variant not in ALIGN_VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; known: {', '.join(ALIGN_VARIANTS)}")
    return next(c for c in REGISTRY.values() if c.variant == variant)


def encoders() -> list[Checkpoint]:
    """The shipped dual encoders trained from scratch, the embedded one first."""
    return [c for c in REGISTRY.values() if c.kind == ENCODER]


def by_path(path: str | Path) -> Checkpoint | None:
    """The entry whose weights are at ``path``, if any."""
    resolved = Path(path).resolve()
    return next((c for c in REGISTRY.values() if c.path.resolve() == resolved), None)
