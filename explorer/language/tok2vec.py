"""spaCy's CNN token vectors in a few torch operations, on the pipeline's own weights.

The English pipelines' ``tok2vec`` (``MultiHashEmbed`` + ``MaxoutWindowEncoder``) runs through about a hundred
thinc layer calls a caption: much of the parse that a caption edit waits for on a 2-core CPU. The same
arithmetic written as one hash-embedding lookup, one maxout and layer norm, and a residual window convolution per
layer takes less (the bench's ``parse.tok2vec_*`` figures, docs/PERFORMANCE.md) and gives the same vectors
(within 2e-6; ``accelerate`` checks it on a probe sentence and keeps spaCy's own layers for a pipeline it does not fit).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch
import torch.nn.functional as F
from spacy.language import Language
from spacy.tokens import Doc
from thinc.api import Model

log = logging.getLogger(__name__)

PROBE = "Two black dogs, one with a red collar, chase a white cat under the old wooden table near 3 boxes."
TOLERANCE = 1e-4  # largest difference from spaCy's own vectors on the probe that still counts as the same


@dataclass(frozen=True)
class MaxoutNorm:
    """thinc's ``maxout >> layernorm``: the largest of each output's pieces, then normalized, scaled and shifted."""

    weight: torch.Tensor  # (pieces * width, inputs), the pieces of an output ``width`` rows apart
    bias: torch.Tensor  # (pieces * width,)
    pieces: int
    gain: torch.Tensor  # (width,)
    shift: torch.Tensor  # (width,)

    @classmethod
    def of(cls, maxout: Model, norm: Model) -> MaxoutNorm:
        width, pieces, inputs = maxout.get_param("W").shape
        weight = maxout.get_param("W").transpose(1, 0, 2).reshape(pieces * width, inputs)
        bias = maxout.get_param("b").T.reshape(-1)
        return cls(*(torch.from_numpy(np.ascontiguousarray(a)) for a in (weight, bias)), pieces,
                   *(torch.from_numpy(norm.get_param(p).copy()) for p in ("G", "b")))

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        """Rows (N, inputs) -> (N, width)."""
        y = F.linear(x, self.weight, self.bias).view(len(x), self.pieces, -1).amax(1)
        return F.layer_norm(y, y.shape[-1:], self.gain, self.shift, eps=1e-8)  # thinc adds 1e-8 to the variance


class FastTok2Vec:
    """A ``MultiHashEmbed >> MaxoutWindowEncoder`` tok2vec model's forward pass; ValueError for another kind."""

    def __init__(self, model: Model) -> None:
        kinds: dict[str, list[Model]] = {}
        for node in model.walk():  # in order: a layer's name is its kind, a combinator's "kind(its layers)"
            kinds.setdefault(node.name.split("(")[0], []).append(node)
        extract, embeds, maxouts, norms, windows, arrays = (kinds.get(k, []) for k in (
            "extract_features", "hashembed", "maxout", "layernorm", "expand_window", "with_array"))
        sizes = {n.attrs["window_size"] for n in windows}
        pads = [n.attrs["pad"] for n in arrays if n.attrs.get("pad")]
        if len(extract) != 1 or not embeds or len(maxouts) != len(norms) or len(windows) != len(maxouts) - 1 \
                or len(sizes) != 1 or len(pads) != 1:
            raise ValueError(f"not a MultiHashEmbed + MaxoutWindowEncoder tok2vec: {model.name}")
        self.ops = model.ops
        self.columns = extract[0].attrs["columns"]
        self.tables = [(e.attrs["column"], e.attrs["seed"], e.get_param("E")) for e in embeds]
        self.mix, *self.layers = (MaxoutNorm.of(m, n) for m, n in zip(maxouts, norms))
        self.window = sizes.pop()
        self.pad = pads[0]  # zero rows around each doc, as many as the layers that read past its ends
        self.width = norms[-1].get_param("G").shape[0]

    def embed(self, ids: np.ndarray) -> torch.Tensor:
        """Each token's hashed attributes looked up and summed per table, the tables side by side, mixed: the
        tokens' attribute ids (tokens, columns) -> vectors (tokens, width)."""
        parts = [self.ops.gather_add(table, self.ops.hash(np.ascontiguousarray(ids[:, column]), seed) % len(table))
                 for column, seed, table in self.tables]
        return self.mix(torch.from_numpy(np.concatenate(parts, axis=1)))

    @torch.inference_mode()
    def __call__(self, docs: Sequence[Doc]) -> list[np.ndarray]:
        """Each doc's token vectors (len(doc), width), as spaCy's tok2vec gives them."""
        lengths = [len(doc) for doc in docs]
        if not sum(lengths):
            return [np.zeros((0, self.width), dtype="float32") for _ in docs]
        ids = np.concatenate([doc.to_array(self.columns).reshape(len(doc), len(self.columns)) for doc in docs])
        rows = self.embed(ids).split(lengths)
        gap = rows[0].new_zeros(self.pad, self.width)
        x = torch.cat([part for row in rows for part in (gap, row)] + [gap])
        span = 2 * self.window + 1
        for layer in self.layers:  # residual window convolutions; the gaps take values too, as in thinc
            padded = F.pad(x, (0, 0, self.window, self.window))
            x = x + layer(torch.cat([padded[i : i + len(x)] for i in range(span)], dim=1))
        starts = np.cumsum([self.pad] + [n + self.pad for n in lengths[:-1]])
        return [x[s : s + n].numpy().copy() for s, n in zip(starts, lengths)]


def accelerate(nlp: Language) -> bool:
    """Run the pipeline's ``tok2vec`` component through ``FastTok2Vec`` where it fits and gives spaCy's own vectors
    on a probe sentence; otherwise leave it as it is. True when swapped."""
    if "tok2vec" not in nlp.pipe_names:
        return False
    pipe = nlp.get_pipe("tok2vec")
    try:
        fast = FastTok2Vec(pipe.model)
        probe = nlp.make_doc(PROBE)
        gap = float(np.abs(fast([probe])[0] - pipe.predict([probe])[0]).max())
    except (ValueError, KeyError, IndexError, RuntimeError) as err:
        log.info("spaCy's tok2vec kept (%s)", err)
        return False
    if gap > TOLERANCE:
        log.warning("spaCy's tok2vec kept: the torch forward differs from it by %.2g on a probe", gap)
        return False
    pipe.predict = fast  # the instance's own: Tok2Vec.__call__ and .pipe call predict, then set_annotations
    return True
