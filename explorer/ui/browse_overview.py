"""Browse's overview: every loaded item with each method's verdict and margin (under the page's model, and a second
model B beside it when one is picked), a method-against-method or model-against-model matrix whose cells filter the
table, closest calls first, a click to open an item in the viewer above, and the slice exported."""

from __future__ import annotations

import tempfile
from pathlib import Path

import gradio as gr
import pandas as pd

from explorer.engine import Engine
from explorer.eval import overview
from explorer.images.inputs import InputError
from explorer.methods import REGISTRY
from explorer.ui import model_menu, sessions
from explorer.ui.guard import guarded, plain
from explorer.ui.serving import Serving

MATRIX_CELLS = {(0, 1): "both right", (1, 1): "fixes", (0, 2): "breaks", (1, 2): "both wrong"}  # (row, column)
BASELINE = REGISTRY["global"].label  # the method the others are set against at first
ONE_MODEL = "none: the page's model alone"  # the second model's menu, when no second model is picked


def hidden() -> dict:
    """A table with nothing to show yet, hidden: no empty "1 | 2 | 3" grid before a run."""
    return gr.update(value=None, visible=False)


def _slice(table: pd.DataFrame | None, category: str, method: str, baseline: str, cell: str | None,
           closest: bool) -> pd.DataFrame:
    if table is None:
        return pd.DataFrame()
    return overview.slice_of(table, category, method, baseline, cell, closest)


def _difference(table: pd.DataFrame, method: str, baseline: str) -> str:
    """``method`` against ``baseline`` over every item both judge: the difference of their scores, its interval and
    McNemar's exact p, in a sentence."""
    if method == baseline:
        return ""
    d = overview.paired_of(table, method, baseline)
    return (f"{plain(method)} - {plain(baseline)}: {d['diff']:+.1f} points [{d['ci'][0]:.1f}, {d['ci'][1]:.1f}] "
            f"over {d['n']} items, McNemar's exact p {d['mcnemar_p']:.2g}.")


def described(rows: pd.DataFrame, loaded_items: list) -> pd.DataFrame:
    """The slice with each item's captions and image names after its category, so that an exported row says what
    the item is, not only its id."""
    chosen = [loaded_items[int(i)] for i in rows["item"]]
    out = rows.copy()
    at = list(out.columns).index("category") + 1
    columns = {}
    for n in range(max((len(item.captions) for item in chosen), default=0)):
        columns[f"caption {n}"] = [item.captions[n] if n < len(item.captions) else "" for item in chosen]
    for n in range(max((len(item.images) for item in chosen), default=0)):
        columns[f"image {n}"] = [_image_name(item, n) for item in chosen]
    for offset, (name, values) in enumerate(columns.items()):
        out.insert(at + offset, name, values)
    return out


def _image_name(item, n: int) -> str:
    """Image ``n`` of ``item`` by its file's name, or, for a picture rendered from the world, by the item's id."""
    if n >= len(item.images):
        return ""
    path = getattr(item.images[n], "path", None)
    return path.name if path is not None else getattr(item.images[n], "source", "") or f"{item.id} image {n}"


def second_model(choice: str | None) -> str | None:
    """The second model's menu entry, None when none is picked."""
    return None if choice in (None, "", ONE_MODEL) else choice


def _two(engine: Engine, loaded_items: list, model: str, model_b: str, progress) -> tuple:
    """The overview of model A (the page's) and model B side by side, the menus set to B against A on the global
    cosine, the models by letter and what was scored."""
    loaded, other = engine.model(model), engine.model(model_b)
    if other.label == loaded.label:
        raise InputError(f"B is the page's model already ({loaded.label}): pick another second model.")
    found = [overview.score_items(m.methods, m.label, loaded_items, progress.tqdm) for m in (loaded, other)]
    table = overview.two_models(loaded_items, (found[0], found[1]), (loaded.methods, other.methods))
    labels = [overview.column_of(m.label, name) for name in overview.MODELS for m in loaded.methods.values()]
    models = {"A": loaded.label, "B": other.label}
    said = (f"Scored {len(table)} items with **A: {plain(loaded.label)}** and **B: {plain(other.label)}** (each "
            f"once per model). In the matrix, fixes are the items B gets right and A wrong, breaks the reverse.")
    return table, labels, overview.column_of(BASELINE, "B"), overview.column_of(BASELINE, "A"), models, said


def build(engine: Engine, choice: gr.State, items: gr.State, selection: gr.State, position: gr.Slider,
          category: gr.Dropdown, serving: Serving):
    """Lay out the overview under Browse's viewer. Opening an item sets the viewer's ``selection`` and ``position``;
    the event is returned for the viewer to chain its drawing on (the position may stay the same), with the second
    model's menu, whose pick the viewer draws beside the page's model."""
    table_state = gr.State(None)  # the overview of the loaded items: one row per item
    cell_state = gr.State(None)  # the matrix cell that filters the table, None for every item
    models_state = gr.State(None)  # {"A": label, "B": label} when two models are shown, else None

    @guarded(lambda message: (None, gr.update(), gr.update(), None, None, message), serving.time_limit_s,
             ": the items scored so far are kept, so pressing the button again goes on from there")
    def score(loaded_items: list, model: str, model_b: str | None, progress=gr.Progress()):
        if not loaded_items:
            return None, gr.update(), gr.update(), None, None, "Load a benchmark first."
        if second_model(model_b):
            table, labels, method, baseline, models, said = _two(engine, loaded_items, model, model_b, progress)
            return (table, gr.update(choices=labels, value=method), gr.update(choices=labels, value=baseline), None,
                    models, said)
        loaded = engine.model(model)
        found = overview.score_items(loaded.methods, loaded.label, loaded_items, progress.tqdm)
        table = overview.frame(loaded_items, found, loaded.methods)
        labels = [m.label for m in loaded.methods.values()]
        method = next((label for label in labels if label != BASELINE), labels[0])
        baseline = BASELINE if BASELINE in labels else labels[0]
        return (table, gr.update(choices=labels, value=method), gr.update(choices=labels, value=baseline), None,
                None, f"Scored {len(table)} items with **{plain(loaded.label)}** (each once per model).")

    @guarded(lambda message: (hidden(), hidden(), message))
    def refresh(table, category_shown: str, method: str, baseline: str, cell: str | None, closest: bool,
                models: dict | None):
        if table is None:
            return hidden(), hidden(), ""
        rows = _slice(table, category_shown, method, baseline, cell, closest)
        said = f"{len(rows)} of {len(table)} items" + (f": {method} against {baseline}, {cell}" if cell else "")
        if models:
            said += f" (A: {plain(models['A'])}; B: {plain(models['B'])})"
        return (gr.update(value=overview.matrix(table, method, baseline), visible=True),
                gr.update(value=rows, visible=True),
                said + ". " + _difference(table, method, baseline) + " Click a row to open it above.")

    def pick_cell(evt: gr.SelectData):
        return MATRIX_CELLS.get(tuple(evt.index))  # the first column (the baseline's verdict): every item again

    @guarded(lambda message: (gr.update(), gr.update(), message))
    def open_item(table, category_shown: str, method: str, baseline: str, cell: str | None, closest: bool,
                  evt: gr.SelectData):
        rows = _slice(table, category_shown, method, baseline, cell, closest)
        keep = [int(i) for i in rows["item"]]
        chosen = keep.index(int(evt.row_value[0]))
        said = f"Opened item {evt.row_value[1]}. {_difference(table, method, baseline)}"
        return keep, gr.update(maximum=max(1, len(keep) - 1), value=chosen), said

    @guarded(lambda message: (None, message))
    def export(table, category_shown: str, method: str, baseline: str, cell: str | None, closest: bool,
               models: dict | None, loaded_items: list | None):
        if table is None or not loaded_items:
            return None, "Score the loaded items first."
        rows = described(_slice(table, category_shown, method, baseline, cell, closest), loaded_items)
        paths = overview.export(rows, Path(tempfile.mkdtemp(dir=sessions.folder("slices"))), models=models)
        return [str(p) for p in paths], f"Exported {len(rows)} items."

    with gr.Accordion("Overview: every loaded item, each method's verdict and margin", open=True):
        with gr.Row(equal_height=True):
            model_b = gr.Dropdown([(ONE_MODEL, ONE_MODEL), *model_menu.labelled(engine.choices())], value=ONE_MODEL,
                                  label="Against a second model (B): "
                                  "each item under both, and the matrix B against A for one method",
                                  elem_id="overview-model-b", scale=2)
            run = gr.Button("Score every loaded item", elem_id="overview-run", scale=1)
        with gr.Row():
            method = gr.Dropdown([], label="Method", elem_id="overview-method")
            baseline = gr.Dropdown([], label="against", elem_id="overview-baseline")
            closest = gr.Checkbox(label="Closest calls first (the method's smallest margins)",
                                  elem_id="overview-closest")
        matrix_view = gr.Dataframe(label="The method against the other: click a cell to list its items (the first "
                                         "column lists them all)", interactive=False, elem_id="overview-matrix",
                                  column_widths=["40%", "30%", "30%"], wrap=True,  # three columns: seen on a phone
                                  visible=False)
        note = gr.Markdown(elem_id="overview-note")
        rows_view = gr.Dataframe(label="Items: verdict and margin per method (margin > 0: right, by that much)",
                                 interactive=False, max_height=420, elem_id="overview-table",
                                 elem_classes=["wide-table"], wrap=True, visible=False)
        with gr.Row():
            export_btn = gr.Button("Export this slice (CSV and JSON)", elem_id="overview-export")
            files = gr.File(label="The slice", file_count="multiple", interactive=False, height=110,
                            elem_id="overview-files")

    shown = [table_state, category, method, baseline, cell_state, closest]
    drawn = [matrix_view, rows_view, note]
    run.click(score, [items, choice, model_b], [table_state, method, baseline, cell_state, models_state, note],
              api_name="overview", **serving.heavy).then(refresh, [*shown, models_state], drawn, **serving.light)
    for control in (category, method, baseline, closest):
        control.change(refresh, [*shown, models_state], drawn, **serving.light)
    for changed in (items.change, choice.change, model_b.change):  # new items or models: the overview was of others
        changed(lambda: (None, None, None, hidden(), hidden(), "", None), None,
                [table_state, cell_state, models_state, matrix_view, rows_view, note, files], **serving.light)
    matrix_view.select(pick_cell, None, cell_state, **serving.light).then(refresh, [*shown, models_state], drawn,
                                                                          **serving.light)
    export_btn.click(export, [*shown, models_state, items], [files, note], api_name="overview_export", **serving.light)
    return rows_view.select(open_item, shown, [selection, position, note], **serving.light), model_b
