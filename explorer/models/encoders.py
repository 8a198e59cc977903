"""DualEncoder: any open_clip model -> global and patch features kept in each image's state, token features per caption.

Loads by registry name and pretrained tag, by local checkpoint file, or the embedded default
(``world-clip`` with the weights in ``checkpoints/``). Uses CUDA with autocast when present; how the towers run
(precision, batch buckets, a compiled image tower) is ``explorer.models.tower``'s.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import open_clip
import torch
import torch.nn.functional as F
from open_clip.factory import HF_HUB_PREFIX  # a model whose config and weights are a hub repository's
from PIL import Image

from explorer.core import cancel, settings
from explorer.core.cache import LRUCache
from explorer.core.image_state import ImageState
from explorer.core.image_state import of as state_of
from explorer.core.image_state import owner_key
from explorer.images.crops import Preprocessing
from explorer.models.checkpoints import EMBEDDED_CHECKPOINT
from explorer.models.load_problems import check_loadable, checkpoint_problem, first_line
from explorer.models.model_configs import EMBEDDED_MODEL, register_configs
from explorer.models.model_errors import ModelUnavailable
from explorer.models.tower import BucketedTower, autocast, buckets, short_text_forward, tower_dtypes

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ImageFeatures:
    """One image: L2-normalized global vector (D,), projected patch tokens (h*w, D) and (h, w)."""

    embedding: torch.Tensor
    patches: torch.Tensor
    grid: tuple[int, int]


@dataclass(frozen=True)
class TextFeatures:
    """One caption: global vector (D,), projected tokens (T, D), and each token's word index."""

    caption: str
    embedding: torch.Tensor
    tokens: torch.Tensor
    token_text: tuple[str, ...]
    token_word: tuple[int, ...]
    words: tuple[str, ...]
    truncated: bool


def _project(x: torch.Tensor, proj) -> torch.Tensor:
    """Token features (..., width) into the joint space (..., D) by a tower's projection (a module, a matrix or
    none)."""
    if proj is None:
        return x
    return proj(x) if isinstance(proj, torch.nn.Module) else x @ proj


def default_device() -> str:
    """The ``device`` setting, else cuda when present, else the CPU."""
    return settings.current().device or ("cuda" if torch.cuda.is_available() else "cpu")


class DualEncoder:
    """A frozen open_clip dual encoder: an image's features kept in its state, a caption's in a cache by caption."""

    def __init__(
        self,
        name: str | None = None,
        pretrained: str | None = None,
        checkpoint: str | Path | None = None,
        device: str | None = None,
        precision: str = "auto",
        compile: bool = False,
    ) -> None:
        register_configs()
        if name is None and pretrained is None and checkpoint is None:
            checkpoint = EMBEDDED_CHECKPOINT
        self.name = name or EMBEDDED_MODEL
        self.pretrained = pretrained
        self.checkpoint = Path(checkpoint) if checkpoint is not None else None
        self.device = device or default_device()
        self.model, self.preprocess, self.tokenizer = self._create()
        self.model.eval().to(self.device)
        self.key = owner_key("encoder")  # the owner of its features in an image's state (``ImageState.kept``)
        self._texts: LRUCache[TextFeatures] = LRUCache()
        self._word_ids: LRUCache[list[int]] = LRUCache(4096)
        # by method, what it reads of a new caption (``ScoringMethod.companion_texts``), set as the method is made
        self.text_hooks: dict[str, Callable[[Sequence[str]], list[str]]] = {}
        self.preprocessing = Preprocessing.of(self.model)
        visual = self.model.visual
        self.image_size: int = visual.image_size[0] if isinstance(visual.image_size, tuple) else visual.image_size
        self.context_length: int = self.model.context_length
        self.precision, self.compile = precision, compile
        self.image_dtype, self.text_dtype = tower_dtypes(precision, self.device)
        towers = dict(image_size=self.image_size, device=self.device, dtype=self.image_dtype, compile=compile)
        # kernels are made per shape where the tower runs at low precision or compiled: those warm in the background,
        # every bucket of region crops (SGI's batches), and the page's one image for the global and patch features
        warm = compile or self.image_dtype is not None
        self._views_tower = BucketedTower(self.model.encode_image, **towers, warm=buckets(64) if warm else ())
        self._features_tower = BucketedTower(self._image_features, **towers, warm=[1] if warm else ())

    @property
    def is_embedded(self) -> bool:
        return self.checkpoint == EMBEDDED_CHECKPOINT

    @property
    def embed_dim(self) -> int:
        """The width of the joint embedding space."""
        return int(self.encode_text("a").embedding.shape[0])

    @property
    def random_weights(self) -> bool:
        """Made with random weights: a registry model with no pretrained tag and no weights file (a hub model brings
        its own)."""
        return self.checkpoint is None and not self.pretrained and not self.name.startswith(HF_HUB_PREFIX)

    @property
    def label(self) -> str:
        """How the model is named to a user: ``world-clip (embedded)``, ``ViT-B-32 / openai``."""
        if self.is_embedded:
            return f"{EMBEDDED_MODEL} (embedded)"
        if self.checkpoint is not None:
            return f"{self.name} @ {self.checkpoint.name}"
        if self.name.startswith(HF_HUB_PREFIX):
            return self.name
        return f"{self.name} / {'random weights' if self.random_weights else self.pretrained}"

    def _create(self):
        hint = " (train it with: python -m explorer train-world)" if self.checkpoint == EMBEDDED_CHECKPOINT else ""
        check_loadable(self.name, self.pretrained, self.checkpoint, hint)
        weights = str(self.checkpoint) if self.checkpoint is not None else self.pretrained
        try:  # open_clip loads a local file itself: safetensors, or torch.load(weights_only=True)
            model, _, preprocess = open_clip.create_model_and_transforms(self.name, pretrained=weights)
            tokenizer = open_clip.get_tokenizer(self.name)
        except Exception as exc:
            if self.checkpoint is not None:
                raise ModelUnavailable(f"Could not load the checkpoint file {self.checkpoint.name} into '{self.name}': "
                                       f"{checkpoint_problem(exc)}.") from exc
            raise ModelUnavailable(  # the hub, a tag, a tokenizer download: one sentence
                f"Could not load '{self.name}' with pretrained weights '{self.pretrained}' ({first_line(exc)}); "
                f"if the model hub cannot be reached, download the weights on a machine that can and pass the file "
                f"with --checkpoint."
            ) from exc
        return model, preprocess, tokenizer

    # --- images -----------------------------------------------------------------------

    def wait_warm(self, timeout: float | None = None) -> bool:
        """Wait until the towers' background warm-up is done (a page that has been up a moment); False on timeout."""
        return all(t.warmed.wait(timeout) for t in (self._views_tower, self._features_tower))

    def _image_features(self, pixels: torch.Tensor) -> dict[str, torch.Tensor]:
        """Model inputs (N, 3, S, S) -> ``global`` (N, D) and the projected patch ``tokens`` (N, h*w, D)."""
        visual = self.model.visual
        if hasattr(visual, "attnpool"):  # a ResNet tower: its last feature map has no NLC form and no ``proj``
            out = self.model.forward_intermediates(image=pixels, image_indices=1, image_output_fmt="NCHW")
            pool = visual.attnpool  # each cell as the pool's value of it, projected as its output is (MaskCLIP)
            cells = out["image_intermediates"][-1].flatten(2).transpose(1, 2) + pool.positional_embedding[1:]
            tokens = pool.c_proj(pool.v_proj(cells))  # (N, h*w, D)
            return {"global": out["image_features"], "tokens": tokens}
        out = self.model.forward_intermediates(
            image=pixels, image_indices=1, normalize_intermediates=True, image_output_fmt="NLC"
        )
        tokens = _project(out["image_intermediates"][-1], getattr(visual, "proj", None))  # autocast's dtype
        return {"global": out["image_features"], "tokens": tokens}

    @property
    def grid(self) -> tuple[int, int]:
        """The image tower's token grid: a ViT's patches, a ResNet's last feature map (1/32 of the image's side)."""
        visual = self.model.visual
        if hasattr(visual, "grid_size"):
            return tuple(visual.grid_size)  # type: ignore[return-value]
        return (self.image_size // 32, self.image_size // 32)

    def _encode_image_batch(self, images: Sequence[Image.Image]) -> list[ImageFeatures]:
        x = torch.stack([self.preprocess(im.convert("RGB")) for im in images])
        grid = self.grid
        feats = []
        for out in self._features_tower(x):
            patches = F.normalize(out["tokens"].float(), dim=-1).cpu()
            glob = F.normalize(out["global"].float(), dim=-1).cpu()
            feats += [ImageFeatures(g, p, grid) for g, p in zip(glob, patches)]  # type: ignore[arg-type]
        return feats

    def fill(self, states: Sequence[ImageState], batch_size: int = 64) -> None:
        """Encode, in batches, the images of the states that lack this encoder's features."""
        todo = list({s.key: s for s in states if not s.has(ImageFeatures, self.key)}.values())
        for i in range(0, len(todo), batch_size):
            cancel.check()
            chunk = todo[i : i + batch_size]
            for state, feats in zip(chunk, self._encode_image_batch([s.image for s in chunk])):
                state.keep(feats, self.key)

    def encode_images(self, images: Sequence[Image.Image | ImageState], batch_size: int = 64) -> list[ImageFeatures]:
        """Features of each image, kept in its state; the new ones encoded in batches."""
        states = [state_of(im) for im in images]
        self.fill(states, batch_size)
        return [s.find(ImageFeatures, self.key) for s in states]  # type: ignore[misc]

    def encode_image(self, image: Image.Image | ImageState) -> ImageFeatures:
        return self.encode_images([image])[0]

    def embed_images(self, images: Sequence[Image.Image], batch_size: int = 64) -> torch.Tensor:
        """Global L2-normalized embeddings (N, D), uncached, through the model's own PIL preprocess."""
        chunks = [images[i : i + batch_size] for i in range(0, len(images), batch_size)]
        return torch.cat([self._embed_chunk(c) for c in chunks])

    def _embed_chunk(self, images: Sequence[Image.Image]) -> torch.Tensor:
        """One batch of ``embed_images``, after the request's stop is checked (a long list stops between batches)."""
        cancel.check()
        return self.embed_pixels(torch.stack([self.preprocess(im.convert("RGB")) for im in images]))

    def embed_pixels(self, pixels: torch.Tensor) -> torch.Tensor:
        """Global L2-normalized embeddings (N, D) on the CPU of model inputs already preprocessed (N, 3, H, W)."""
        return F.normalize(torch.cat([out.float() for out in self._views_tower(pixels)]), dim=-1).cpu()

    # --- texts ------------------------------------------------------------------------

    def _word_tokens(self, word: str) -> list[int]:
        """The word's token ids, remembered: captions and their prompts repeat the same words."""
        if word not in self._word_ids:
            inner = getattr(self.tokenizer, "tokenizer", None)  # HF tokenizers wrap one
            ids = inner.encode(word, add_special_tokens=False) if inner is not None else self.tokenizer.encode(word)
            self._word_ids.put(word, ids)
        return self._word_ids.get(word)

    def _decode(self, token_id: int) -> str:
        inner = getattr(self.tokenizer, "tokenizer", None)
        if inner is not None:
            return inner.decode([token_id])
        return self.tokenizer.decode([token_id]).strip()

    def _alignment(self, caption: str, ids: Sequence[int]) -> tuple[list[int], list[int], bool]:
        """Positions of the caption's content tokens in ``ids`` and each one's word index."""
        words = caption.split()
        sot = getattr(self.tokenizer, "sot_token_id", None)
        start = 1 if sot is not None and ids[0] == sot else 0
        word_of = [w for w, word in enumerate(words) for _ in self._word_tokens(word)]
        room = self.context_length - start - 1  # keep the end-of-text token
        positions = list(range(start, start + min(len(word_of), room)))
        return positions, word_of[: len(positions)], len(word_of) > room

    def encode_texts(self, captions: Sequence[str], companions: bool = True,
                     batch_size: int = 256) -> list[TextFeatures]:
        """Features of each caption; new ones go through the text tower in one batch with their companions.

        Companions are the texts the methods will read of a new caption (``text_hooks``: SGI's segment prompts,
        PowerCLIP's tree nodes); ``companions=False`` for texts that are themselves such derived prompts.
        """
        found = {c: self._texts.get(c) for c in captions if c in self._texts}
        todo = list(dict.fromkeys(c for c in captions if c not in found))
        if todo and companions:
            extra = [t for hook in self.text_hooks.values() for t in hook(todo)]
            todo += [t for t in dict.fromkeys(extra) if t not in self._texts and t not in todo]
        for i in range(0, len(todo), batch_size):
            cancel.check()
            for feats in self._encode_text_batch(todo[i : i + batch_size]):
                found[feats.caption] = self._texts.put(feats.caption, feats)
        return [found[c] for c in captions]

    @torch.no_grad()
    def _encode_text_batch(self, texts: list[str]) -> list[TextFeatures]:
        ids = self.tokenizer(texts).to(self.device)
        proj = getattr(self.model, "text_projection", None)
        if proj is None and hasattr(self.model, "text"):
            proj = getattr(self.model.text, "text_projection", None)
        with autocast(self.device, self.text_dtype):
            out = short_text_forward(self.model, ids)
            if out is None:
                out = self.model.forward_intermediates(text=ids, text_indices=1, normalize_intermediates=True)
                out["text_tokens"] = out["text_intermediates"][-1]
            tokens = _project(out["text_tokens"], proj)  # in autocast's dtype, as the tokens are
        tokens = F.normalize(tokens.float(), dim=-1).cpu()
        glob = F.normalize(out["text_features"].float(), dim=-1).cpu()
        feats = []
        for c, row, g, t in zip(texts, ids.tolist(), glob, tokens):  # ids as ints: read a position at a time
            pos, word_of, truncated = self._alignment(c, row)
            if truncated:
                log.warning("caption longer than %d tokens, truncated: %r", self.context_length, c)
            feats.append(TextFeatures(
                caption=c,
                embedding=g,
                tokens=t[pos],
                token_text=tuple(self._decode(row[p]) for p in pos),
                token_word=tuple(word_of),
                words=tuple(c.split()),
                truncated=truncated,
            ))
        return feats

    def encode_text(self, caption: str) -> TextFeatures:
        return self.encode_texts([caption])[0]

    @torch.no_grad()
    def embed_texts(self, captions: Sequence[str], batch_size: int = 256) -> torch.Tensor:
        """Global L2-normalized caption embeddings (N, D), uncached."""
        out = []
        for i in range(0, len(captions), batch_size):
            ids = self.tokenizer(list(captions[i : i + batch_size])).to(self.device)
            with autocast(self.device, self.text_dtype):
                out.append(self.model.encode_text(ids).float())
        return F.normalize(torch.cat(out), dim=-1).cpu()
