"""A benchmark item's own two pictures on the Compare tab: a VisMin item (two pictures a minimal change apart, a
caption each) scored both ways by every method, shown as the same 2 x 2 as a swap's image B (Winoground's text,
image and group scores, each method's four scores marked)."""

from __future__ import annotations

from typing import Callable, Sequence

import gradio as gr

from explorer.core import image_state
from explorer.core.items import Item
from explorer.engine import Engine
from explorer.engine.swap import SwapResult
from explorer.eval.benchmark_registry import load_items
from explorer.images.inputs import InputError, whole_number
from explorer.ui.guard import guarded, plain
from explorer.ui.main_tab import MainInputs
from explorer.ui.serving import Serving
from explorer.world import SPLITS
from explorer.world.published_minimal import VISMIN_KINDS

PAIR_BENCHMARK = "world-vismin"  # the world's VisMin: object, attribute, spatial and count changes
PAIR_SPLIT = SPLITS[0]  # the split of the world the model was trained on
MAX_INDEX = 199  # items drawn per category at most


def pair_captions(item: Item) -> tuple[str, str]:
    """Caption A, image 0's own, and caption B, image 1's own; ``InputError`` for an item that is not two pictures
    with a caption each."""
    if len(item.images) != 2 or len(item.captions) != 2 or sorted(item.right) != [0, 1]:
        raise InputError(f"item {item.id} is not two pictures with a caption each: the 2 x 2 needs both")
    return item.captions[item.right[0]], item.captions[item.right[1]]


def pair_result(engine: Engine, item: Item, choice: str, view: str, size: int | None = None,
                progress=None) -> SwapResult:
    """Both of ``item``'s pictures scored with both its captions by every method of ``engine``: image A its picture
    0, caption A that picture's own; the pictures read in the item's view where its authors fix one, else ``view``."""
    a, b = pair_captions(item)
    image_a, image_b = item.pictures(size)
    view = item.info.get("view") or view
    side_a = engine.analyze(image_state.of(image_a), a, b, progress, choice=choice, view=view)
    side_b = engine.analyze(image_state.of(image_b), a, b, progress, choice=choice, view=view)
    return SwapResult(image_a, image_b, side_a, side_b, (f"not made: {item.id}'s own picture for it ({item.kind})",))


def world_vismin_item(kind: str, index: float | None) -> Item:
    """The world's VisMin item ``index`` of category ``kind``, drawn from its first split."""
    if kind not in VISMIN_KINDS:
        raise InputError(f"VisMin's categories are {', '.join(VISMIN_KINDS)}, got {kind!r}")
    n = whole_number(index, "The item's number", 0, MAX_INDEX)
    items = [it for it in load_items(PAIR_BENCHMARK, limit=n + 1, split=PAIR_SPLIT) if it.kind == kind]
    return items[n]


def picker() -> tuple[gr.Dropdown, gr.Number, gr.Button]:
    """The item's category, its number and the button that scores it, in a row of the current layout block."""
    with gr.Row():
        kind = gr.Dropdown(list(VISMIN_KINDS), value=VISMIN_KINDS[1], label="Or a VisMin item of the world: its "
                           "category (two pictures a minimal change apart, a caption each)", elem_id="pair-kind")
        index = gr.Number(value=0, precision=0, label=f"Its number (0 to {MAX_INDEX})", elem_id="pair-index")
        button = gr.Button("Score both of its pictures", elem_id="pair-score")
    return kind, index, button


def wire(engine: Engine, serving: Serving, main: MainInputs, picked: tuple[gr.Dropdown, gr.Number, gr.Button],
         shown: Sequence[gr.components.Component], draw: Callable[[SwapResult, str], tuple]) -> None:
    """``picked``'s button draws the item's 2 x 2 by ``draw`` (a result and what to say of it -> the swap panel's
    note, image A, image B, verdicts, grids and files) into ``shown``: those and the inputs its 2 x 2 was made from
    (none: any change of the page's inputs clears it)."""

    @guarded(lambda message: (message, None, None, None, "", None, None), serving.time_limit_s)
    def show_pair(kind: str, index: float | None, choice: str, view: str = "whole", progress=gr.Progress()):
        """A world VisMin item's two pictures and two captions, and every method's 2 x 2 of them."""
        result = pair_result(engine, world_vismin_item(kind, index), choice, view, progress=progress)
        a, b = result.analysis_a.captions
        said = (f"VisMin on the world, {kind} item {int(index or 0)}: image A with its caption A *{plain(a)}*, image "
                f"B with its caption B *{plain(b)}*. Scored by **{plain(result.analysis_a.model)}**.")
        return (*draw(result, said), None)

    kind, index, button = picked
    button.click(show_pair, [kind, index, main.choice, main.view], list(shown), api_name="pair_two_by_two",
                 **serving.heavy)
