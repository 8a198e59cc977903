"""A benchmark item's own two pictures on the Compare tab: a VisMin item (two pictures a minimal change apart, a
caption each) scored both ways by every method, shown as the same 2 x 2 as a swap's image B (Winoground's text,
image and group scores, each method's four scores marked)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable, Sequence

import gradio as gr

from explorer.core import image_state
from explorer.core.data_roots import DataAccess, OutsideRoots
from explorer.core.items import Item
from explorer.engine import Engine
from explorer.engine.swap import SwapResult
from explorer.eval.benchmark_registry import load_items
from explorer.eval.dataset_loaders import DatasetError
from explorer.eval.uploads import benchmark_path, without_server_paths
from explorer.images.inputs import InputError, whole_number
from explorer.ui.guard import guarded, plain
from explorer.ui.main_tab import MainInputs
from explorer.ui.serving import Serving
from explorer.world import SPLITS
from explorer.world.published_minimal import VISMIN_KINDS

PAIR_BENCHMARK = "world-vismin"  # the world's VisMin: object, attribute, relation and counting changes
PAIR_SPLIT = SPLITS[0]  # the split of the world the model was trained on
MAX_INDEX = 199  # items drawn per category at most
SHOWN = ()  # "made from" of a 2 x 2 or message of none of the page's inputs: any change of them clears it


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


@lru_cache(maxsize=2)
def _vismin_items(path: str, stamp: float, access: DataAccess) -> tuple[Item, ...]:
    """VisMin's items at ``path`` as its authors lay them out, read once per change of the files (``stamp``)."""
    return tuple(load_items("vismin", path, access=access))


def vismin_item(path: str | Path, kind: str, index: float | None, access: DataAccess, upload: str | None = None) -> Item:
    """VisMin's own item ``index`` of category ``kind`` from its files at ``path`` (the hub's rows, as ``eval
    --benchmark vismin`` reads them; ``upload``: the .zip they came in, for messages), read as ``access`` allows;
    ``InputError`` naming what it has where it has no such item."""
    n = whole_number(index, "The item's number", 0, MAX_INDEX)
    try:
        where = access.typed(str(path))
        files = [f for f in where.rglob("*") if f.is_file()] if where.is_dir() else [where]
        every = _vismin_items(str(where), max((f.stat().st_mtime for f in files), default=0.0), access)
    except (DatasetError, OutsideRoots, OSError, ValueError) as exc:
        raise InputError(f"Cannot read VisMin's files: {without_server_paths(str(exc), upload)}") from None
    items = [it for it in every if it.kind == kind]
    if n >= len(items):
        has = ", ".join(f"{k} ({sum(it.kind == k for it in every)})" for k in dict.fromkeys(it.kind for it in every))
        raise InputError(f"VisMin's files hold {len(items)} items of category {kind!r}, so no item {n}; they hold: "
                         f"{has}")
    return items[n]


@dataclass(frozen=True)
class Picker:
    """Which VisMin item: its category and number, of the world's or of VisMin's own files (an upload, or a folder
    typed inside the page's data roots), and the button that scores it."""

    kind: gr.Dropdown
    index: gr.Number
    upload: gr.File
    typed: gr.Textbox
    button: gr.Button


def picker(data: DataAccess) -> Picker:
    """The picker, in rows of the current layout block; ``data``: the folders of the server a typed path may read."""
    with gr.Row():
        kind = gr.Dropdown(list(VISMIN_KINDS), value=VISMIN_KINDS[1],
                           allow_custom_value=True, label="Or a VisMin item, two pictures a minimal change apart and "
                           "a caption each: its category", elem_id="pair-kind")
        index = gr.Number(value=0, precision=0, label=f"Its number (0 to {MAX_INDEX})", elem_id="pair-index")
        button = gr.Button("Score both of its pictures", elem_id="pair-score")
    with gr.Row(equal_height=True):  # VisMin's own files; none: the world's VisMin
        upload = gr.File(label="VisMin's own files (none: the world's): a .zip of its folder, the hub's data/ as "
                               "its authors keep it today", file_types=[".zip"], type="filepath",
                         height=130, elem_id="pair-upload")
        typed = gr.Textbox(label="or its folder on the server" + (f", inside {' or '.join(map(str, data.roots))}"
                                                                  if data.roots else ": none here (upload it)"),
                           interactive=bool(data.roots), elem_id="pair-data")
    return Picker(kind, index, upload, typed, button)


def picked_item(kind: str, index: float | None, upload: str | None, typed: str | None, data: DataAccess) -> tuple[
        Item, str]:
    """The item the picker names and its name in words: from an upload, else a typed folder, else the world's."""
    if upload:
        try:
            folder = benchmark_path(upload, "vismin")
        except DatasetError as exc:
            raise InputError(without_server_paths(str(exc), upload)) from None
        return vismin_item(folder, kind, index, DataAccess(), upload), f"VisMin's {kind} item {int(index or 0)}"
    if (typed or "").strip():
        return vismin_item(typed.strip(), kind, index, data), f"VisMin's {kind} item {int(index or 0)}"
    return world_vismin_item(kind, index), f"VisMin on the world, {kind} item {int(index or 0)}"


def wire(engine: Engine, serving: Serving, main: MainInputs, picked: Picker, shown: Sequence[gr.components.Component],
         draw: Callable[[SwapResult, str], tuple]) -> gr.events.Dependency:
    """``picked``'s button draws the item's 2 x 2 by ``draw`` (a result and what to say of it -> the swap panel's
    note, image A, image B, verdicts, grids and files) into ``shown``: those, the inputs its 2 x 2 was made from
    (``SHOWN``: any change of the page's inputs clears it) and the 2 x 2 itself; returns the button's event."""

    @guarded(lambda message: (message, None, None, None, "", None, SHOWN, None), serving.time_limit_s)
    def show_pair(kind: str, index: float | None, upload: str | None, typed: str | None, choice: str,
                  view: str = "whole", progress=gr.Progress()):
        """A VisMin item's two pictures and two captions, and every method's 2 x 2 of them."""
        item, named = picked_item(kind, index, upload, typed, serving.data)
        result = pair_result(engine, item, choice, view, progress=progress)
        a, b = result.analysis_a.captions
        said = (f"{named}: image A with its caption A *{plain(a)}*, image B with its caption B *{plain(b)}*. "
                f"Scored by **{plain(result.analysis_a.model)}**" + (", each picture read as VisMin's authors read "
                                                                   "it (the model's own preprocess)" if
                                                                   item.info.get("view") == "raw" else "") + ".")
        return (*draw(result, said), SHOWN, result)

    return picked.button.click(show_pair, [picked.kind, picked.index, picked.upload, picked.typed, main.choice, main.view],
                        list(shown), api_name="pair_two_by_two", **serving.heavy)
