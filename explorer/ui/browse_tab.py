"""Browse a benchmark item by item, filter it, and send an item to the main page."""

from __future__ import annotations

import gradio as gr

from explorer.core.data_roots import DataAccess
from explorer.core.items import Item, picture
from explorer.drawing.display import display_image
from explorer.engine import UNTRAINED_MARK, Engine, share
from explorer.eval.benchmark_registry import BENCHMARKS, left_out, load_items
from explorer.eval.browse import (
    BROWSE_SIZE, MAX_PER_CATEGORY, Reading, for_main_page, items_per_category, read, reading_note, select,
)
from explorer.eval.dataset_loaders import DatasetError
from explorer.eval.uploads import benchmark_path, without_server_paths
from explorer.figures.item_figures import cosine_grid, cosine_span
from explorer.images.inputs import whole_number
from explorer.methods import REGISTRY
from explorer.ui import browse_overview, sessions
from explorer.ui.guard import guarded, plain, warn
from explorer.ui.main_tab import MainInputs
from explorer.ui.serving import Serving

FEWER = ", or with fewer items per category"
SMALLER = (", or with a smaller file (split it): a load reads every row of a file and checks each image it names, "
           "however few items per category it keeps")
SHOWN_SIDE = 320
SKIPPED_SHOWN = 10  # bad rows of an own pairs file named in the status, the first ones
GLOBAL = REGISTRY["global"].label  # the cosines shown are its


def _verdict(right: bool | None) -> str:
    return "n/a" + UNTRAINED_MARK if right is None else "right" if right else "**wrong**"


def _describe(item: Item, readings: dict[str, Reading]) -> str:
    """The item's global cosines (one model; with two, its heat maps show them) and each method's verdict under each
    model (by label: one, or A and B), as markdown."""
    first, models = next(iter(readings.values())), list(readings)
    letters = [""] if len(models) == 1 else ["A: ", "B: "]
    named = " and ".join(f"**{letter}{plain(m)}**" for letter, m in zip(letters, models))
    lines = [f"**{plain(item.id)}** ({plain(item.category)}), scored by {named}", ""]
    if len(models) == 1:
        n = first.cosines.shape[1]
        lines += ["| caption | " + " | ".join(f"{GLOBAL} with image {i}" for i in range(n)) + " |",
                  "|---|" + "---|" * n]
        for c, caption in enumerate(item.captions):
            lines.append(f"| {c}: {plain(caption)} | " + " | ".join(f"{v:.4f}" for v in first.cosines[c]) + " |")
    else:
        lines.append(f"Each model's {GLOBAL}s are its heat map above: captions down, images across, each image's own "
                     f"caption boxed.")
    lines += ["", f"Each method's verdict (right: {first.rule}):", "",
              "| method | " + " | ".join(f"{letter}verdict" for letter in letters) + " |",
              "|---|" + "---|" * len(models)]
    for label in first.verdicts:
        lines.append(f"| {label} | " + " | ".join(_verdict(r.verdicts[label]) for r in readings.values()) + " |")
    return "\n".join(lines)


def _readings_side_by_side(item: Item, readings: dict[str, Reading]) -> tuple:
    """Each model's cosines of the item as a heat map on one colour scale, A's and B's, titled with its verdict."""
    span = cosine_span(*(r.cosines for r in readings.values()))
    figures = [cosine_grid(r.cosines, item.captions, item.right, f"{letter}: {model}: {GLOBAL} "
                           f"{_verdict(r.verdicts[GLOBAL]).strip('*')}", span)
               for letter, (model, r) in zip("AB", readings.items())]
    return tuple(gr.update(value=fig, visible=True) for fig in figures)


def _typed_label(access: DataAccess) -> str:
    """The typed path's label: where it may lead on this server."""
    if not access.roots:
        return "Its folder or file on the server: none here (this page reads no server folder; upload it instead)"
    return (f"Its folder or file on the server, inside {' or '.join(str(r) for r in access.roots)}: a public benchmark "
            f"in its own layout, or your own pairs (.csv, .jsonl)")


def build(engine: Engine, main: MainInputs, tabs: gr.Tabs, main_tab_id: str, serving: Serving) -> None:
    """Lay out the browse tab inside the current ``gr.Tab``."""
    items_state = gr.State([])
    selection = gr.State([])

    def load_hint(benchmark: str, *_, **__) -> str:
        """What would help a load that ran over the limit: a world benchmark makes fewer items, a file is read whole."""
        return SMALLER if getattr(BENCHMARKS.get(benchmark), "from_files", False) else FEWER

    @guarded(lambda message: ([], [], gr.update(), gr.update(), message), serving.time_limit_s, load_hint)
    def load(benchmark: str, data: str, limit: float | None, upload: str | None = None):
        per_category = items_per_category(limit)
        try:
            if upload and BENCHMARKS[benchmark].from_files:  # an upload's named files stay in its own folder
                path, access = str(benchmark_path(upload, benchmark)), DataAccess()
            else:  # a typed path: only inside the operator's data roots
                path, access = (data or "").strip() or None, serving.data
            items = load_items(benchmark, path, per_category, access=access)
            rows_left_out = left_out(benchmark, path, access=access)
        except (DatasetError, ValueError) as exc:
            return [], [], gr.update(), gr.update(), f"**Cannot load:** {plain(without_server_paths(str(exc), upload))}"
        cats = ["all"] + sorted({it.category for it in items})
        keep = list(range(len(items)))
        said = f"Loaded {len(items)} items."
        if rows_left_out:
            said += f" Left out {len(rows_left_out)} rows:  \n" + "  \n".join(
                plain(without_server_paths(row, upload)) for row in rows_left_out[:SKIPPED_SHOWN])
            said += "  \n..." if len(rows_left_out) > SKIPPED_SHOWN else ""
        said += reading_note(items)  # which reading: a public benchmark's is its authors'
        return (items, keep, gr.update(choices=cats, value="all"), gr.update(maximum=max(1, len(keep) - 1), value=0),
                said)

    def filtered(items, category: str, wrong_only: bool, model: str, progress) -> tuple:
        """The items of ``category`` (those the model's global score gets wrong, with ``wrong_only``), the slider
        over them and a status that names the model."""
        loaded = engine.model(model)
        wrong_by = loaded.methods["global"] if wrong_only else None
        keep = select(items, category, wrong_by, progress.tqdm if wrong_only else (lambda it: it))
        said = f"{len(keep)} of {len(items)} items"
        said += f" that **{plain(loaded.label)}**'s {GLOBAL} gets wrong." if wrong_only else "."
        return keep, gr.update(maximum=max(1, len(keep) - 1), value=0), said

    @guarded(lambda message: (gr.update(), gr.update(), message), serving.time_limit_s, FEWER)
    def refilter(items, category: str, wrong_only: bool, model: str, progress=gr.Progress(track_tqdm=False)):
        return filtered(items, category, wrong_only, model, progress)

    @guarded(lambda message: (gr.update(), gr.update(), message), serving.time_limit_s, FEWER)
    def remake(items, category: str, wrong_only: bool, model: str, progress=gr.Progress(track_tqdm=False)):
        """Another model: a wrong-only list was the former model's, so it is made again; any other list stays."""
        if not wrong_only:
            return gr.update(), gr.update(), gr.update()
        return filtered(items, category, wrong_only, model, progress)

    hidden = (gr.update(value=None, visible=False),) * 2  # the two models' readings, without a second model

    @guarded(lambda message: (None, None, *hidden, message), serving.time_limit_s)
    def show(items, keep, position: float, model: str, model_b: str | None):
        if not keep:
            return None, None, *hidden, "No item to show: load a benchmark, or loosen the filter."
        item = items[keep[whole_number(position, "The item's position", 0, len(keep) - 1)]]
        try:
            images = item.pictures(BROWSE_SIZE)
        except DatasetError as exc:
            return None, None, *hidden, warn(f"Cannot show this item: {without_server_paths(str(exc))}")
        models = [engine.model(m) for m in (model, browse_overview.second_model(model_b)) if m]
        readings = {m.label: read(m.methods, item, images) for m in models}
        pictures = _readings_side_by_side(item, readings) if len(readings) == 2 else hidden
        shown = [display_image(im, SHOWN_SIDE)[0] for im in images]  # a world scene is 112 px: shown crisp, larger
        return shown[0], shown[1] if len(shown) > 1 else None, *pictures, _describe(item, readings)

    @guarded(lambda message: (gr.update(), gr.update(), gr.update(), gr.update(), message))
    def send(items, keep, position: float):
        if not keep:
            return gr.update(), gr.update(), gr.update(), gr.update(), "Nothing to send."
        item = items[keep[whole_number(position, "The item's position", 0, len(keep) - 1)]]
        path = sessions.folder("send") / f"{abs(hash(item.id))}.png"
        ref, caption_a, caption_b = for_main_page(item)
        sent = picture(ref, BROWSE_SIZE)
        sent.save(path)
        if item.split:  # a world item: a link to its comparison can name it
            share.remember_item(sent, item.id)
        return str(path), caption_a, caption_b, gr.Tabs(selected=main_tab_id), "Sent."

    with gr.Row():
        benchmark = gr.Dropdown([(b.menu, name) for name, b in BENCHMARKS.items()], value="world", label="Benchmark",
                                elem_id="browse-benchmark")  # each named with its citation, what it tests, its metric
        limit = gr.Number(value=50, label=f"Items per category (1 to {MAX_PER_CATEGORY})", elem_id="browse-limit")
        load_btn = gr.Button("Load", elem_id="browse-load")
    with gr.Row(equal_height=True):  # where a public benchmark or your own pairs come from (the world needs neither)
        upload = gr.File(label="Upload it: your own pairs (.csv, .jsonl), or a .zip of a benchmark's folder with its "
                               "images", file_types=[".csv", ".jsonl", ".json", ".parquet", ".zip"],
                         type="filepath", height=120, min_width=280, elem_id="browse-upload")
        data = gr.Textbox(label=_typed_label(serving.data), interactive=bool(serving.data.roots), min_width=280,
                          elem_id="browse-data")
    with gr.Row():
        category = gr.Dropdown(["all"], value="all", label="Category", elem_id="browse-category")
        wrong_only = gr.Checkbox(label="Only the items the global score gets wrong", elem_id="browse-wrong")
        position = gr.Slider(0, 1, step=1, value=0, label="Item", elem_id="browse-position")
    status = gr.Markdown(elem_id="browse-status")
    with gr.Row():
        image_0 = gr.Image(label="Image 0", interactive=False, height=SHOWN_SIDE, elem_id="browse-image-0")
        image_1 = gr.Image(label="Image 1", interactive=False, height=SHOWN_SIDE, elem_id="browse-image-1")
    with gr.Row():  # with a second model: each model's reading of the item, side by side (stacked on a phone)
        reading_a = gr.Plot(label="Model A's reading", visible=False, elem_id="browse-reading-a", min_width=300)
        reading_b = gr.Plot(label="Model B's reading", visible=False, elem_id="browse-reading-b", min_width=300)
    details = gr.Markdown(elem_id="browse-details")
    send_btn = gr.Button("Send the image and two captions to the main page", elem_id="browse-send")
    opened, model_b = browse_overview.build(engine, main.choice, items_state, selection, position, category, serving)

    shown = [items_state, selection, position, main.choice, model_b]
    drawn = [image_0, image_1, reading_a, reading_b, details]
    load_btn.click(load, [benchmark, data, limit, upload], [items_state, selection, category, position, status],
                   api_name="browse_load", **serving.heavy).then(show, shown, drawn, **serving.heavy)
    filters = ((category.change, refilter, False), (wrong_only.change, refilter, "browse_filter"),
               (main.choice.change, remake, False))
    for trigger, handler, api_name in filters:
        trigger(handler, [items_state, category, wrong_only, main.choice], [selection, position, status],
                api_name=api_name, **serving.heavy).then(show, shown, drawn, **serving.heavy)
    position.change(show, shown, drawn, api_name="browse_show", trigger_mode="always_last", **serving.heavy)
    opened.then(show, shown, drawn, **serving.heavy)
    model_b.change(show, shown, drawn, **serving.heavy)
    send_btn.click(send, [items_state, selection, position],
                   [main.upload, main.caption_a, main.caption_b, tabs, status],
                   api_name="browse_send", **serving.light)
