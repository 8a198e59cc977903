"""Where the model looks for the global cosine: the evidence (plain dataclasses), the interface every explainer shares
and the registry in which each one is named.

An explainer reads the model as loaded (open_clip's own modules, through hooks): it runs the image and text towers
once with gradients for an image and several texts (a caption and its segments' prompts), and turns what its hooks
recorded and the gradient of each text's cosine into a map over the image tower's patch grid or feature map. The same
backward pass gives each text token's share of the score (gradient x input on the token embeddings).
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Iterator, Sequence, TypeVar

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image

from explorer.drawing.maps import upsample
from explorer.images.regions import Box, visible_box
from explorer.language.prompts import segment_prompts
from explorer.language.text import Segment
from explorer.models.encoders import DualEncoder


@dataclass(frozen=True)
class Relevance:
    """One text's map over the image, and which of its tokens carry its cosine."""

    text: str  # what was scored against the image: the caption, or a segment's prompt ("a red square")
    segment: Segment | None  # the caption's segment this prompt stands for; None for the whole caption
    cosine: float  # the global cosine of the image and the text
    grid: np.ndarray  # (h, w) relevance >= 0 on the tower's patch grid (a ViT) or last feature map (a CNN)
    map: np.ndarray  # (H, W) the grid upsampled bilinearly over the part of the image the model sees; 0 elsewhere
    box: Box  # that part of the image, in pixels
    tokens: tuple[str, ...]  # the text's tokens as the encoder reads them
    shares: np.ndarray  # (tokens,) |gradient x input| of each token's embedding, summing to 1 (zeros if none)


@dataclass(frozen=True)
class Explanation:
    """One explainer's reading of an image and a caption: the whole caption's map and each segment's."""

    explainer: str
    caption: str
    whole: Relevance
    segments: tuple[Relevance, ...]  # in the order of ``explorer.language.text.segments``; () for a caption of one segment


class Explainer(ABC):
    """Relevance maps of the global image-text cosine, read off one open_clip model.

    ``model`` defaults to the encoder's; another (a copy with randomized blocks, for the sanity check) must share its
    preprocess and tokenizer. ``settings`` set the attributes the subclass names in ``settings`` (e.g. where rollout
    starts). Subclasses say which towers they apply to (``applies``), which hooks record what they
    need during the image tower's forward (``hooks``), which recorded tensors the cosine is differentiated by
    (``targets``) and how those gradients make a map (``maps``).
    """

    name: ClassVar[str]
    label: ClassVar[str]
    settings: ClassVar[tuple[str, ...]] = ()  # the attributes a caller may set (their class values are the defaults)

    def __init__(self, encoder: DualEncoder, model: torch.nn.Module | None = None, **settings: Any) -> None:
        unknown = set(settings) - set(self.settings)
        if unknown:
            raise ValueError(f"{self.label} has no setting {', '.join(sorted(unknown))}; its settings: "
                             f"{', '.join(self.settings) or 'none'}")
        self.__dict__.update(settings)
        self.encoder = encoder
        self.model = model if model is not None else encoder.model
        if not self.applies(self.model):
            raise ValueError(f"{self.label} does not apply to {encoder.label}'s image tower "
                             f"({type(self.model.visual).__name__})")

    @staticmethod
    @abstractmethod
    def applies(model: torch.nn.Module) -> bool:
        """Whether this explainer can read ``model``'s image tower."""

    @abstractmethod
    def hooks(self, record: list[Any]) -> list[torch.utils.hooks.RemovableHandle]:
        """Hooks on the image tower that append what ``targets`` and ``maps`` read to ``record``."""

    @abstractmethod
    def targets(self, record: list[Any]) -> list[torch.Tensor]:
        """The recorded tensors the summed cosines are differentiated by."""

    @abstractmethod
    def maps(self, record: list[Any], grads: Sequence[torch.Tensor]) -> torch.Tensor:
        """(texts, h, w) relevance >= 0 from the record and the gradients of ``targets``."""

    def explain(self, image: Image.Image, caption: str) -> Explanation:
        """The caption's map and each of its segments' (their prompts, ``language.prompts``: "a red square")."""
        return self.explain_all(image, [caption])[0]

    def explain_all(self, image: Image.Image, captions: Sequence[str]) -> list[Explanation]:
        """``explain`` for several captions of one image (A and B), in one pass over the towers."""
        pairs = [[(seg, prompt) for seg, prompt in segment_prompts(c) if seg.kind != "caption"] for c in captions]
        found = iter(self.relevance(image, [t for c, ps in zip(captions, pairs) for t in (c, *(p for _, p in ps))]))
        out = []
        for caption, ps in zip(captions, pairs):
            whole = next(found)
            segments = tuple(Relevance(r.text, seg, r.cosine, r.grid, r.map, r.box, r.tokens, r.shares)
                             for (seg, _), r in zip(ps, found))
            out.append(Explanation(self.name, caption, whole, segments))
        return out

    def relevance(self, image: Image.Image, texts: Sequence[str]) -> list[Relevance]:
        """Each text's map over ``image``, from one forward and one backward pass over copies of the image."""
        texts = list(texts)
        device = self.encoder.device
        # one copy of the image per text (each copy's gradient is its own text's); the pixels ask for a gradient so
        # that a tower whose weights ask for none still records a graph
        pixels = self.encoder.preprocess(image.convert("RGB")).to(device).repeat(len(texts), 1, 1, 1).requires_grad_()
        ids = self.encoder.tokenizer(texts).to(device)
        record: list[Any] = []
        with torch.enable_grad(), _owned(self.hooks(record)), _embedding_recorder(self.model) as embedded:
            image_features = F.normalize(self.model.encode_image(pixels).float(), dim=-1)
            text_features = F.normalize(self.model.encode_text(ids).float(), dim=-1)
            cosines = (image_features * text_features).sum(-1)
            targets = self.targets(record)
            grads = torch.autograd.grad(cosines.sum(), [*targets, *embedded[:1]], allow_unused=True)
            grids = self.maps(record, grads[: len(targets)]).detach().float().clamp(min=0).cpu()
        token_shares = _shares(embedded[:1], grads[len(targets):])
        box = visible_box(image.width, image.height, self.encoder.preprocess)
        read = self.encoder.encode_texts(texts, companions=False)
        out = []
        for i, (text, feats) in enumerate(zip(texts, read)):
            shares = _content_shares(token_shares, i, ids[i, 0].item(), len(feats.token_text), self.encoder.tokenizer)
            out.append(Relevance(text, None, float(cosines[i].detach()), grids[i].numpy(),
                                 upsample(grids[i], image.size, box), box, feats.token_text, shares))
        return out


@contextmanager
def _owned(handles: list[torch.utils.hooks.RemovableHandle]) -> Iterator[None]:
    try:
        yield
    finally:
        for handle in handles:
            handle.remove()


def only_this_thread(hook: Callable[..., Any]) -> Callable[..., Any]:
    """``hook`` run for forwards of the thread that registered it, with gradients on; other calls of a shared model
    (another session's analysis on the page) pass through untouched."""
    owner = threading.get_ident()

    def guarded(*args: Any, **kwargs: Any) -> Any:
        if threading.get_ident() != owner or not torch.is_grad_enabled():
            return None
        return hook(*args, **kwargs)

    return guarded


@contextmanager
def _embedding_recorder(model: torch.nn.Module) -> Iterator[list[torch.Tensor]]:
    """The text tower's token embeddings of the forward inside the block (none where it has no ``token_embedding``:
    a Hugging Face text tower)."""
    layer = getattr(getattr(model, "text", model), "token_embedding", None)
    found: list[torch.Tensor] = []
    if layer is None:
        yield found
        return
    def keep(module: torch.nn.Module, args: tuple, out: torch.Tensor) -> torch.Tensor:
        out = out if out.requires_grad else out.detach().requires_grad_()
        found.append(out)
        return out

    handle = layer.register_forward_hook(only_this_thread(keep))
    with _owned([handle]):
        yield found


def _shares(embedded: list[torch.Tensor], grads: Sequence[torch.Tensor | None]) -> torch.Tensor | None:
    """(texts, positions) |gradient x input| summed over each token embedding's channels."""
    if not embedded or grads[0] is None:
        return None
    return (grads[0] * embedded[0]).sum(-1).abs().detach().float().cpu()


def _content_shares(shares: torch.Tensor | None, row: int, first_id: int, n: int, tokenizer: Any) -> np.ndarray:
    """The shares of a text's ``n`` content tokens (after the start token, where the tokenizer has one), summing
    to 1; zeros where the tower gave none."""
    sot = getattr(tokenizer, "sot_token_id", None)
    start = 1 if sot is not None and first_id == sot else 0
    if shares is None or n == 0:
        return np.zeros(n, dtype=np.float32)
    values = shares[row, start:start + n].numpy().astype(np.float32)
    total = float(values.sum())
    return values / total if total > 0 else values


REGISTRY: dict[str, type[Explainer]] = {}
Kind = TypeVar("Kind", bound=type[Explainer])


def register(name: str, label: str) -> Callable[[Kind], Kind]:
    """A class decorator: the explainer, known by ``name`` (the pointing report's source), ``label`` its title."""
    def add(cls: Kind) -> Kind:
        known = REGISTRY.get(name)
        if known is not None and known is not cls:
            raise ValueError(f"two explainers named {name!r}: {known.__qualname__} and {cls.__qualname__}")
        cls.name, cls.label = name, label
        REGISTRY[name] = cls
        return cls

    return add


def explainers_for(model: torch.nn.Module) -> list[str]:
    """The names of the explainers that apply to ``model``'s image tower, in the registry's order."""
    return [name for name, cls in REGISTRY.items() if cls.applies(model)]


def get_explainer(name: str, encoder: DualEncoder, model: torch.nn.Module | None = None, **settings: Any) -> Explainer:
    if name not in REGISTRY:
        raise ValueError(f"unknown explainer {name!r}; known: {', '.join(REGISTRY)}")
    return REGISTRY[name](encoder, model, **settings)
