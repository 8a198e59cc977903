"""TFLocal's tab, declared (the page builds it): each caption token's cross-attention over the image, A and B side
by side, with the scores."""

from __future__ import annotations

from typing import Any

from PIL import Image

from explorer.core.markdown import plain
from explorer.images.inputs import whole_number
from explorer.methods.base import page_methods
from explorer.methods.tabs import Column, Menu, MethodTab, Picks, Picture, Row, Scores, Step, Text
from explorer.methods.tflocal.pictures import attention_pictures
from explorer.models.modeling.alignment import HEADS, LAYERS

MEAN = "mean"


def shown_methods() -> list[str]:
    """The methods whose scores the tab's table shows: those before TFLocal on the page, and TFLocal."""
    order = list(page_methods())
    return order[: order.index("tflocal") + 1] if "tflocal" in order else ["tflocal"]


def _token_choices(evidence) -> list[tuple[str, int]]:
    return [(f"{i}: {t}", i) for i, t in enumerate(evidence.tokens)]


def _index(choice: str, what: str, count: int) -> int | None:
    """A layer or head menu's choice as an index (None for the mean); a number outside the menu is refused."""
    return None if choice == MEAN else whole_number(choice, what, 1, count) - 1


def _menu(label: str, count: int) -> Menu:
    """A menu of the mean and each of ``count`` layers or heads, from 1, the mean chosen."""
    return Menu(label, tuple((c, c) for c in [MEAN, *map(str, range(1, count + 1))]), MEAN)


def show_scores(image: Image.Image, analysis: Any) -> tuple:
    """The scores table, a note, and each caption's tokens to pick from."""
    a, b = (s.evidence for s in analysis.scores["tflocal"])
    note = "" if a.trained else " **Untrained head**: no TFLocal weights for this model, so the attention is random."
    text = (f"Model: **{plain(analysis.model)}**  \nA: *{plain(analysis.captions[0])}*  \n"
            f"B: *{plain(analysis.captions[1])}*{note}")
    return text, analysis.table(shown_methods()), _token_choices(a), _token_choices(b)


def draw_heatmaps(image: Image.Image, analysis: Any, tokens_a: list[int], tokens_b: list[int], layer: str,
                  head: str) -> tuple:
    """The chosen tokens' attention over the image for caption A and B, on one scale."""
    a, b = (s.evidence for s in analysis.scores["tflocal"])
    layer_i, head_i = _index(layer, "The layer", LAYERS), _index(head, "The head", HEADS)
    return (*attention_pictures(image, [(a, tokens_a), (b, tokens_b)], layer_i, head_i), "")


_NOTE, _SCORES = Text("tflocal-note", waiting=True), Scores("tflocal-scores")
_LAYER, _HEAD = _menu("Layer", LAYERS), _menu("Head", HEADS)
_TOKENS = Picks("tokens-a", "Tokens of caption A"), Picks("tokens-b", "Tokens of caption B")
_HEAT = Picture("attention-a", "TFLocal attention, caption A"), Picture("attention-b", "TFLocal attention, caption B")
_DRAWN = Text("tflocal-draw-note")

TAB = MethodTab(
    "TFLocal attention",
    "Caption tokens attend to the image's patch tokens in each layer of the TFLocal transformer (over the frozen "
    "encoder). Pick tokens (none = all of them), a layer and a head, or their mean.",
    (_NOTE, _SCORES, Row((_LAYER, _HEAD)), Row(tuple(Column(pair) for pair in zip(_TOKENS, _HEAT))), _DRAWN),
    (Step(show_scores, (_NOTE, _SCORES, *_TOKENS)),
     Step(draw_heatmaps, (*_HEAT, _DRAWN), (*_TOKENS, _LAYER, _HEAD))))
