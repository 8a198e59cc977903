"""The explorer's engine: the loaded model, its methods, and one analysis of an image and two captions."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Sequence

import open_clip
from PIL import Image

from explorer.encoders import DualEncoder
from explorer.inputs import clean_caption_pair
from explorer.methods import REGISTRY, Score, ScoringMethod, get_method

log = logging.getLogger(__name__)

EMBEDDED_CHOICE = "world-clip (embedded)"
DEFAULT_METHODS = ("global", "sgi", "tflocal", "powerset")  # what the page computes


def model_choices(current: str = EMBEDDED_CHOICE) -> list[str]:
    """The embedded model first, then every open_clip model / pretrained tag pair (and ``current``)."""
    pairs = [f"{name} / {tag}" for name, tag in open_clip.list_pretrained()]
    return list(dict.fromkeys([EMBEDDED_CHOICE, current] + pairs))


def choice_for(encoder: DualEncoder) -> str:
    """The menu entry that names a loaded encoder."""
    if encoder.label.endswith("(embedded)"):
        return EMBEDDED_CHOICE
    if encoder.checkpoint is None and encoder.pretrained:
        return f"{encoder.name} / {encoder.pretrained}"
    return encoder.label


def encoder_for_choice(choice: str, device: str | None = None) -> DualEncoder:
    if choice == EMBEDDED_CHOICE:
        return DualEncoder(device=device)
    name, _, tag = (part.strip() for part in choice.partition("/"))
    return DualEncoder(name, tag or None, device=device)


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: gradio's State hashes what it holds
class Analysis:
    captions: tuple[str, str]
    scores: dict[str, tuple[Score, Score]]
    notices: tuple[str, ...] = ()

    def rows(self) -> list[dict[str, object]]:
        """One row per method: both scores, their delta, and which caption the method prefers."""
        out = []
        for name, (a, b) in self.scores.items():
            delta = a.value - b.value
            prefers = "A" if delta > 0 else "B" if delta < 0 else "tie"
            out.append({"method": REGISTRY[name].label, "score A": round(a.value, 4),
                        "score B": round(b.value, 4), "A - B": round(delta, 4), "prefers": prefers})
        return out


@dataclass
class Engine:
    """One loaded model and its scoring methods; loading another model swaps them atomically."""

    encoder: DualEncoder
    method_names: Sequence[str] = DEFAULT_METHODS
    method_options: dict[str, dict] = field(default_factory=dict)
    choice: str = ""

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self.choice = self.choice or choice_for(self.encoder)
        self.methods = self._make_methods(self.encoder)

    def _make_methods(self, encoder: DualEncoder) -> dict[str, ScoringMethod]:
        return {n: get_method(n, encoder, **self.method_options.get(n, {})) for n in self.method_names}

    def switch(self, choice: str) -> None:
        """Load another model; on failure the current one stays (the error says why)."""
        if choice == self.choice:
            return
        encoder = encoder_for_choice(choice, self.encoder.device)
        methods = self._make_methods(encoder)
        with self._lock:
            self.encoder, self.methods, self.choice = encoder, methods, choice

    @property
    def device(self) -> str:
        return self.encoder.device

    def analyze(self, image: Image.Image, caption_a: str, caption_b: str, progress=None) -> Analysis:
        a, b = clean_caption_pair(caption_a, caption_b)
        notices = []
        for which, feats in zip("AB", self.encoder.encode_texts([a, b])):
            if feats.truncated:
                notices.append(f"Caption {which} is longer than the model's {self.encoder.context_length} "
                               f"tokens: only its start was read.")
        scores = {}
        with self._lock:
            methods = dict(self.methods)
        for i, (name, method) in enumerate(methods.items()):
            if progress is not None:
                progress((i, len(methods)), desc=f"{method.label}...")
            sa, sb = method.score(image, [a, b])
            scores[name] = (sa, sb)
        return Analysis((a, b), scores, tuple(notices))
