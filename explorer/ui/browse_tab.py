"""Browse a benchmark item by item, filter it, and send an item to the main page."""

from __future__ import annotations

import tempfile
from pathlib import Path

import gradio as gr

from explorer.browse import BENCHMARKS, BrowseItem, is_right, load_items, select, similarities
from explorer.datasets import DatasetError
from explorer.engine import UNTRAINED_MARK, Engine
from explorer.model_pool import LoadedModel
from explorer.ui.guard import guarded, plain, warn
from explorer.ui.main_tab import MainInputs
from explorer.ui.serving import Serving

SEND_DIR = Path(tempfile.mkdtemp(prefix="explorer-send-"))


def _describe(loaded: LoadedModel, item: BrowseItem, images) -> str:
    """The item's global cosines, and each method's verdict on it, by the session's model."""
    found = similarities(loaded.methods, item, images)
    lines = [f"**{plain(item.id)}** ({plain(item.category)}), scored by **{plain(loaded.label)}**", "",
             "| caption | " + " | ".join(f"global cosine with image {i}" for i in range(len(images))) + " |",
             "|---|" + "---|" * len(images)]
    for c, caption in enumerate(item.captions):
        lines.append(f"| {c}: {plain(caption)} | " + " | ".join(f"{v:.4f}" for v in found["global"][c]) + " |")
    rule = ("both captions matched to their own image, and both images to their own caption (the group score)"
            if len(images) == 2 else "caption 0 scored above caption 1")
    lines += ["", f"Each method's verdict (right: {rule}):", "", "| method | verdict |", "|---|---|"]
    for name, method in loaded.methods.items():
        verdict = "right" if is_right(found[name]) else "**wrong**"
        lines.append(f"| {method.label} | {verdict if method.trained else 'n/a' + UNTRAINED_MARK} |")
    return "\n".join(lines)


def build(engine: Engine, main: MainInputs, tabs: gr.Tabs, main_tab_id: str, serving: Serving) -> None:
    """Lay out the browse tab inside the current ``gr.Tab``."""
    items_state = gr.State([])
    selection = gr.State([])

    @guarded(lambda message: ([], [], gr.update(), gr.update(), message), serving.time_limit_s)
    def load(benchmark: str, data: str, limit: float | None):
        try:
            items = load_items(benchmark, (data or "").strip() or None, int(limit) if limit else None)
        except (DatasetError, ValueError) as exc:
            return [], [], gr.update(), gr.update(), f"**Cannot load:** {plain(str(exc))}"
        cats = ["all"] + sorted({it.category for it in items})
        keep = list(range(len(items)))
        return (items, keep, gr.update(choices=cats, value="all"), gr.update(maximum=max(1, len(keep) - 1), value=0),
                f"Loaded {len(items)} items.")

    @guarded(lambda message: (gr.update(), gr.update(), message), serving.time_limit_s)
    def refilter(items, category: str, wrong_only: bool, model: str, progress=gr.Progress(track_tqdm=False)):
        wrong_by = engine.model(model).methods["global"] if wrong_only else None
        keep = select(items, category, wrong_by, progress.tqdm if wrong_only else (lambda it: it))
        return keep, gr.update(maximum=max(1, len(keep) - 1), value=0), f"{len(keep)} of {len(items)} items."

    @guarded(lambda message: (None, None, message), serving.time_limit_s)
    def show(items, keep, position: float, model: str):
        if not keep:
            return None, None, "No item to show: load a benchmark, or loosen the filter."
        item = items[keep[min(int(position), len(keep) - 1)]]
        try:
            images = [ref.load() for ref in item.images]
        except DatasetError as exc:
            return None, None, warn(f"Cannot show this item: {exc}")
        return images[0], images[1] if len(images) > 1 else None, _describe(engine.model(model), item, images)

    @guarded(lambda message: (gr.update(), gr.update(), gr.update(), gr.update(), message))
    def send(items, keep, position: float):
        if not keep:
            return gr.update(), gr.update(), gr.update(), gr.update(), "Nothing to send."
        item = items[keep[min(int(position), len(keep) - 1)]]
        path = SEND_DIR / f"{abs(hash(item.id))}.png"
        item.images[0].load().save(path)
        return str(path), item.captions[0], item.captions[1], gr.Tabs(selected=main_tab_id), "Sent."

    with gr.Row():
        benchmark = gr.Dropdown(list(BENCHMARKS), value="world", label="Benchmark", elem_id="browse-benchmark")
        data = gr.Textbox(label="Its folder or file (public benchmarks, in their own layout)", elem_id="browse-data")
        limit = gr.Number(value=50, precision=0, label="Items per category")
        load_btn = gr.Button("Load", elem_id="browse-load")
    with gr.Row():
        category = gr.Dropdown(["all"], value="all", label="Category", elem_id="browse-category")
        wrong_only = gr.Checkbox(label="Only the items the global score gets wrong", elem_id="browse-wrong")
        position = gr.Slider(0, 1, step=1, value=0, label="Item", elem_id="browse-position")
    status = gr.Markdown(elem_id="browse-status")
    with gr.Row():
        image_0 = gr.Image(label="Image 0", interactive=False)
        image_1 = gr.Image(label="Image 1", interactive=False)
    details = gr.Markdown(elem_id="browse-details")
    send_btn = gr.Button("Send image 0 and both captions to the main page", elem_id="browse-send")

    shown = [items_state, selection, position, main.choice]
    load_btn.click(load, [benchmark, data, limit], [items_state, selection, category, position, status],
                   api_name="browse_load", **serving.heavy).then(show, shown, [image_0, image_1, details], **serving.heavy)
    for trigger in (category.change, wrong_only.change):
        trigger(refilter, [items_state, category, wrong_only, main.choice], [selection, position, status],
                **serving.heavy).then(show, shown, [image_0, image_1, details], **serving.heavy)
    position.change(show, shown, [image_0, image_1, details], api_name="browse_show", trigger_mode="always_last",
                    **serving.heavy)
    send_btn.click(send, [items_state, selection, position], [main.upload, main.caption_a, main.caption_b, tabs, status],
                   api_name="browse_send", **serving.light)
