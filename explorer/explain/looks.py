"""The page's "Where the model looks", without gradio: for a segment of the captions (or the whole caption), A's
and B's map from an explainer or from a scoring method's own evidence (each method whose ``MethodInfo`` has a
``segment_map``, with its label, scale and how to read it, read as ``pointing`` reads them), each text's tokens with
their share of the cosine, and what a reader must know (random weights, a source this model lacks). Explanations are
kept in the image's state (``explorer.core.image_state``) by model, explainer and caption, as the methods keep their
scores."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

import numpy as np
from PIL import Image

from explorer.core import image_state
from explorer.core.image_state import ImageState
from explorer.explain.base import REGISTRY, Explanation, Relevance, explainers_for, get_explainer
from explorer.explain.sources import Maps, method_sources, peak, segment_map
from explorer.images.fit import Fit, frame_of
from explorer.images.inputs import InputError
from explorer.language.prompts import segment_prompts
from explorer.methods import REGISTRY as METHOD_REGISTRY
from explorer.methods import Score
from explorer.models.encoders import DualEncoder

WHOLE = -1  # the segment menu's entry for the whole caption
EXPLAINER = "explainer"  # the source menu's entry for the chosen explainer's map
# The menu's order: rollout first, as it points best on val-id / val-heldout (65.9 / 68.5% against Grad-ECLIP's
# 47.2 / 53.0; docs/explanations.md); an explainer registered later comes after these
EXPLAINER_ORDER = ("rollout", "grad-eclip", "gradcam")
EXPLAINER_LABEL = "the explainer's map"
EXPLAINER_SCALE = "relevance to the cosine"
# The pictures keep their colours: the map lies beside each, its top part outlined on the picture (each method's
# ``segment_map`` says how to read its own)
EXPLAINER_READING = ("Beside each picture, its map: white where that caption's global cosine draws most on the image, "
                     "dark where it draws least (A and B on one scale); the outline on the picture, in its own "
                     "colours, encloses where the map is at least half its most. Where both outline the same objects, "
                     "the cosine cannot be telling the two bindings apart there.")


@dataclass(frozen=True)
class Panel:
    """One caption's side of ``Looks``."""

    caption: str
    text: str  # what the map is for: the caption, or its segment's prompt ("a red square")
    map: np.ndarray | None  # (H, W) >= 0 over the image; None where the source has none for this text
    point: tuple[int, int] | None  # where it points: the map's peak, a crop's or a subset's centre
    tokens: tuple[str, ...]  # the text's tokens as the encoder reads them
    shares: np.ndarray  # each token's share of the text's cosine (the explainer's backward pass)
    cosine: float | None  # the global cosine of the image and the text
    missing: str = ""  # why there is no map
    said: str = ""  # the method's own number for its map, where it has one ("SGI's chosen crop: cosine 0.779")


@dataclass(frozen=True)
class Looks:
    """Where the model looks for one text of A and of B: their panels, what their maps are and how to read them, and
    what the reader must know first."""

    panels: tuple[Panel, Panel]
    source: str
    explainer: str
    scale_title: str
    reading: str
    notes: tuple[str, ...]
    region: bool = False  # each map is a region, 1 inside and 0 outside (a crop, a subset)


def source_menu() -> list[tuple[str, str]]:
    """(label, name) of each map source: the explainer's, then each method's with a map per segment (its
    ``MethodInfo.segment_map``), in the page's order."""
    return [(EXPLAINER_LABEL, EXPLAINER), *((segment_map(name).label, name) for name in method_sources())]


def source_label(source: str) -> str:
    return EXPLAINER_LABEL if source == EXPLAINER else segment_map(source).label


def scale_title(source: str) -> str:
    """The title of ``source``'s colour bar (the explainer's without the explainer's name)."""
    return EXPLAINER_SCALE if source == EXPLAINER else segment_map(source).scale_title


def reading(source: str) -> str:
    """How to read ``source``'s maps."""
    return EXPLAINER_READING if source == EXPLAINER else segment_map(source).reading


def explainer_menu(model: Any) -> list[tuple[str, str]]:
    """(label, name) of each explainer that applies to ``model``'s image tower, the best pointing first."""
    names = sorted(explainers_for(model), key=lambda n: EXPLAINER_ORDER.index(n) if n in EXPLAINER_ORDER else 99)
    return [(REGISTRY[n].label, n) for n in names]


def caption_segments(caption: str) -> list[str]:
    """The prompts of a caption's segments, as the explainers read them ("a red square"); none for one segment."""
    return [prompt for seg, prompt in segment_prompts(caption) if seg.kind != "caption"]


def segment_menu(captions: Sequence[str]) -> list[tuple[str, int]]:
    """(label, index) of the whole caption and each segment, A's and B's at one index side by side."""
    found = [caption_segments(c) for c in captions]
    out = [("whole caption", WHOLE)]
    for i in range(max(map(len, found))):
        said = [f"{k}: \u201c{segs[i]}\u201d" if i < len(segs) else f"{k}: none" for k, segs in zip("AB", found)]
        out.append((f"segment {i + 1} ({', '.join(said)})", i))
    return out


def explanations(encoder: DualEncoder, name: str, image: Image.Image | ImageState,
                 captions: Sequence[str]) -> list[Explanation]:
    """``name``'s explanation of each caption on ``image``, kept in the image's state by model, explainer and
    caption: the captions not kept are explained together, in one pass (a caption edit explains the edited caption
    alone)."""
    state = image_state.of(image)
    return state.by_caption((encoder.key, name), captions,
                            lambda new: get_explainer(name, encoder).explain_all(state.image, new))


def _chosen(explanation: Explanation, segment: int) -> Relevance | None:
    if segment == WHOLE:
        return explanation.whole
    return explanation.segments[segment] if 0 <= segment < len(explanation.segments) else None


def _method_maps(source: str, encoder: DualEncoder, image: Image.Image, score: Score) -> Maps:
    """The method ``source``'s map of each segment of ``score``'s caption, (H, W) over ``image``, by its characters."""
    return segment_map(source).read(encoder, image, score.caption, score.evidence)


def _unavailable(source: str, encoder: DualEncoder, scores: dict[str, tuple[Score, Score]] | None) -> str:
    """Why ``source`` has no map for this comparison ("" where it has)."""
    if source == EXPLAINER:
        return ""
    label = source_label(source)
    if scores is None:
        return (f"{label} is read from the page's comparison of A and B, and these captions have none on "
                f"this image with {encoder.label} (compare them on the first tab).")
    if source not in scores:
        return f"{label} is not available: this page does not run {METHOD_REGISTRY[source].label}."
    untrained = segment_map(source).untrained
    if untrained and not getattr(scores[source][0].evidence, "trained", True):
        return f"{label} is not available for {encoder.label}: {untrained}"
    return ""


def _panel(relevance: Relevance | None, caption: str, segment: int, source: str, maps: Maps | None,
           missing: str) -> Panel:
    """One caption's panel: the explainer's map, or the method's for the same segment, or why there is none."""
    if relevance is None:
        return Panel(caption, "", None, None, (), np.zeros(0), None, f"this caption has no segment {segment + 1}")
    base = dict(caption=caption, text=relevance.text, tokens=relevance.tokens, shares=relevance.shares,
                cosine=relevance.cosine)
    if missing:  # the looks' note says why at length
        return Panel(**base, map=None, point=None,
                     missing=f"{source_label(source)} is not available here (see the note)")
    if source == EXPLAINER:
        return Panel(**base, map=relevance.map, point=peak(relevance.map).point)
    if segment == WHOLE:
        return Panel(**base, map=None, point=None,
                     missing=f"{METHOD_REGISTRY[source].label} reads the caption by segments: pick a segment to see its map")
    found = (maps or {}).get(relevance.segment.chars)
    if found is None:
        return Panel(**base, map=None, point=None, missing=f"{source_label(source)} has none for this segment")
    said = "" if found.value is None else f"{source_label(source)}: cosine {found.value:.3f}"
    return Panel(**base, map=found.map, point=found.point, said=said)


def on_frame(panel: Panel, fit: Fit | None) -> Panel:
    """A panel worked out on a view of the picture, its map and point moved back onto the picture's own frame."""
    if fit is None or panel.map is None:
        return panel
    point = None if panel.point is None else (panel.point[0] + fit.box[0], panel.point[1] + fit.box[1])
    return replace(panel, map=fit.map_to_frame(panel.map), point=point)


def looks(encoder: DualEncoder, seen: ImageState, captions: Sequence[str],
          scores: dict[str, tuple[Score, Score]] | None, explainer: str, segment: int = WHOLE,
          source: str = EXPLAINER) -> Looks:
    """A's and B's maps for ``segment`` (``WHOLE`` or an index of ``segment_menu``) from ``source``, on the model and
    device of ``encoder``, worked out on ``seen``, the state of the view of the image the methods read (the analysis's
    ``state``; ``fit.view_state`` where there is no comparison), and drawn back on the picture's own frame, (H, W) of
    it. ``scores``: the methods' scores of that view and ``captions`` with their evidence (the page's comparison),
    None where there is none: the explainers need none, the methods' maps are read from them."""
    frame = frame_of(seen)
    image = seen.image
    applies = [name for _, name in explainer_menu(encoder.model)]
    if explainer not in applies:
        raise InputError(f"The explainer {explainer!r} does not apply to {encoder.label}; those that do: "
                         f"{', '.join(applies) or 'none'}.")
    if source != EXPLAINER and segment_map(source) is None:
        names = [name for _, name in source_menu()]
        raise InputError(f"The map source must be one of {', '.join(names)}; got {source!r}.")
    found = explanations(encoder, explainer, seen, captions)  # kept in the view's state, not a copy hashed anew
    missing = _unavailable(source, encoder, scores)
    method = scores[source] if scores and source != EXPLAINER and not missing and segment != WHOLE else None
    maps = [_method_maps(source, encoder, image, s) for s in method] if method else [None, None]
    panels = tuple(on_frame(_panel(_chosen(e, segment), c, segment, source, m, missing), frame and frame.fit)
                   for e, c, m in zip(found, captions, maps))
    notes = [missing] if missing else []
    if encoder.random_weights:
        notes.insert(0, f"Random weights: {encoder.label} was loaded with random weights (no pretrained weights "
                        f"given, or none reachable), so these maps show how an untrained network responds, not where "
                        f"a trained one looks.")
    title = f"{scale_title(source)} ({explainer})" if source == EXPLAINER else scale_title(source)
    region = source != EXPLAINER and segment_map(source).region
    return Looks(panels, source, explainer, title, reading(source), tuple(notes), region)
