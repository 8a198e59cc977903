"""Loaded models shared by every user of one server: a bounded, least-recently-used pool with a memory budget."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import open_clip

from explorer.methods import ScoringMethod
from explorer.models import checkpoints, zoo
from explorer.models.encoders import DualEncoder
from explorer.models.load_problems import first_line
from explorer.models.loader import EncoderSpec, load_encoder
from explorer.models.model_errors import ModelUnavailable

log = logging.getLogger(__name__)

EMBEDDED_CHOICE = "world-clip (embedded)"
PROJECT_SUFFIX = " (project checkpoint)"


def project_checkpoints() -> dict[str, checkpoints.Checkpoint]:
    """Menu entry -> the project's own world encoders besides the embedded one: those trained from scratch, and the
    embedded one fine-tuned end to end (the registry's whole encoders)."""
    return {f"{c.name}{PROJECT_SUFFIX}": c for c in checkpoints.REGISTRY.values()
            if c.is_encoder and c != checkpoints.EMBEDDED}


def model_choices(extra: Sequence[str] = ()) -> list[str]:
    """The embedded model, the project's other encoders, ``extra``, the compositional zoo (``explorer.models.zoo``),
    then every open_clip pretrained pair."""
    pairs = [f"{name} / {tag}" for name, tag in open_clip.list_pretrained()]
    return list(dict.fromkeys([EMBEDDED_CHOICE, *project_checkpoints(), *extra, *zoo.ZOO, *pairs]))


def choice_for(encoder: DualEncoder) -> str:
    """The menu entry that names a loaded encoder."""
    if encoder.is_embedded:
        return EMBEDDED_CHOICE
    by_name = {c.name: choice for choice, c in project_checkpoints().items()}
    entry = checkpoints.by_path(encoder.checkpoint) if encoder.checkpoint is not None else None
    if entry is not None and entry.name in by_name:
        return by_name[entry.name]
    if encoder.checkpoint is None and encoder.pretrained:
        return f"{encoder.name} / {encoder.pretrained}"
    return encoder.label


def spec_for_choice(choice: str, device: str | None = None, **options) -> EncoderSpec:
    """The encoder a menu entry names (``options``: ``EncoderSpec``'s precision and compile); ``ModelUnavailable``
    for one that is not a menu entry."""
    if choice == EMBEDDED_CHOICE:
        return EncoderSpec(device=device, **options)
    project = project_checkpoints()
    if choice in project:
        return EncoderSpec(checkpoint=project[choice].name, device=device, **options)
    if choice in zoo.ZOO:  # a zoo entry by its published name
        return zoo.spec(choice, device, **options)
    name, sep, tag = (part.strip() for part in choice.partition("/"))
    if not (sep and name and tag):
        raise ModelUnavailable(f"Unknown model '{choice}': pick one from the menu.")
    return EncoderSpec(name, tag, device=device, **options)


def encoder_for_choice(choice: str, device: str | None = None, **options) -> DualEncoder:
    """Load the encoder a menu entry names (``spec_for_choice``)."""
    return load_encoder(spec_for_choice(choice, device, **options))


def spec_for_name(name: str, device: str | None = None, **options) -> EncoderSpec:
    """The encoder any name of a model gives: a zoo entry (``NegCLIP``: its own sentence where it cannot load here), a
    menu entry (``ViT-B-32 / openai``, ``world-clip (embedded)``), a shipped checkpoint's name
    (``world-clip-finetune``) or a weights file; ``ModelUnavailable`` saying which for anything else."""
    if name in zoo.ZOO:  # the zoo's own sentence where it cannot load (no file, a fork, the hub out of reach)
        return zoo.spec(name, device, **options)
    if name in checkpoints.REGISTRY or Path(name).suffix or Path(name).exists():
        return EncoderSpec(checkpoint=name, device=device, **options)
    try:
        return spec_for_choice(name, device, **options)
    except ModelUnavailable:
        raise ModelUnavailable(f"Unknown model '{name}': name a menu entry ('{EMBEDDED_CHOICE}', 'ViT-B-32 / openai'), "
                               f"a shipped checkpoint ({', '.join(checkpoints.REGISTRY)}) or a weights file.") from None


def parameter_mb(encoder: DualEncoder) -> float:
    """Memory the encoder's weights and buffers take, in MiB."""
    tensors = [*encoder.model.parameters(), *encoder.model.buffers()]
    return sum(t.numel() * t.element_size() for t in tensors) / 2**20


@dataclass(frozen=True)
class LoadedModel:
    """One encoder and its scoring methods, as every session that picked it shares them."""

    choice: str
    encoder: DualEncoder
    methods: dict[str, ScoringMethod]
    size_mb: float

    @property
    def label(self) -> str:
        return self.encoder.label

    @property
    def device(self) -> str:
        return self.encoder.device


class ModelPool:
    """Models by menu entry: loaded once however many sessions use them, the least recently used evicted first.

    The start-up model is pinned (never evicted). Eviction only drops the pool's reference: a session in the
    middle of an analysis keeps the model it holds until it is done.
    """

    def __init__(self, make_methods: Callable[[DualEncoder], dict[str, ScoringMethod]], device: str,
                 budget_mb: float, max_models: int, precision: str = "auto",
                 compile: bool = False) -> None:
        self._make_methods = make_methods
        self.device = device
        self.encoder_options = {"precision": precision, "compile": compile}  # every model loads as the first did
        self.budget_mb = budget_mb
        self.max_models = max_models
        self._models: OrderedDict[str, LoadedModel] = OrderedDict()
        self._pinned: set[str] = set()
        self._lock = threading.Lock()
        self._loading: dict[str, threading.Lock] = {}

    def add(self, choice: str, encoder: DualEncoder, pinned: bool = False) -> LoadedModel:
        loaded = LoadedModel(choice, encoder, self._make_methods(encoder), parameter_mb(encoder))
        with self._lock:
            self._models[choice] = loaded
            if pinned:
                self._pinned.add(choice)
            self._evict(keep=choice)
        return loaded

    def loaded(self) -> list[str]:
        with self._lock:
            return list(self._models)

    def _cached(self, choice: str) -> LoadedModel | None:
        with self._lock:
            if choice in self._models:
                self._models.move_to_end(choice)
                return self._models[choice]
        return None

    def get(self, choice: str) -> LoadedModel:
        """The loaded model for a menu entry, loading it once (concurrent requests for it wait for that load)."""
        found = self._cached(choice)
        if found is not None:
            return found
        with self._lock:
            gate = self._loading.setdefault(choice, threading.Lock())
        with gate:
            found = self._cached(choice)
            if found is not None:
                return found
            log.info("loading %s on %s", choice, self.device)
            try:
                encoder = encoder_for_choice(choice, self.device, **self.encoder_options)
            except ModelUnavailable:
                raise
            except Exception as exc:  # anything a model's own loading code raises becomes one sentence
                log.exception("loading %s failed", choice)
                raise ModelUnavailable(f"Could not load '{choice}' ({first_line(exc)}).") from exc
            return self.add(choice, encoder)

    def _evict(self, keep: str) -> None:
        """Drop least recently used unpinned models while the pool is over its count or memory budget."""
        def over() -> bool:
            total = sum(m.size_mb for m in self._models.values())
            return len(self._models) > self.max_models or total > self.budget_mb

        for choice in list(self._models):
            if not over():
                return
            if choice != keep and choice not in self._pinned:
                log.info("evicting %s from the model pool", choice)
                del self._models[choice]
