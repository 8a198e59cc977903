"""The main page: an image, caption A and B, global and SGI scores, best-crop overlays, heatmap."""

from __future__ import annotations

import logging
from dataclasses import dataclass

import gradio as gr
import pandas as pd

from explorer import text, viz
from explorer.encoders import ModelUnavailable
from explorer.engine import Engine, model_choices
from explorer.examples import examples
from explorer.inputs import InputError, clean_caption, load_image

log = logging.getLogger(__name__)

TABLE_COLUMNS = ["method", "score A", "score B", "A - B", "prefers"]


@dataclass(frozen=True)
class MainInputs:
    """The main page's inputs that other tabs fill (an image and two captions), and its last result."""

    upload: gr.File
    caption_a: gr.Textbox
    caption_b: gr.Textbox
    result: gr.State  # (image, Analysis) of the last comparison; the method tabs draw from it


def _warn(message: str) -> str:
    return f"**Cannot run:** {message}"


def _device_line(engine: Engine) -> str:
    return f"Model: **{engine.encoder.label}** on **{engine.device}**"


def build(engine: Engine) -> MainInputs:
    """Lay out the main tab inside the current ``gr.Tab``; returns the inputs other tabs fill."""
    exs = examples()

    def preview(path: str | None):
        if not path:
            return None, ""
        try:
            return load_image(path), ""
        except InputError as exc:
            return None, _warn(str(exc))

    def swap(caption_a: str):
        try:
            proposal = text.propose_swap(clean_caption(caption_a, "A"))
        except InputError as exc:
            return gr.update(), _warn(str(exc))
        if proposal is None:
            return gr.update(), _warn("No swap found: caption A needs two objects (or an object with a relation).")
        return proposal.caption, f"Swapped ({proposal.kind}): {proposal.note}."

    def switch_model(choice: str, progress=gr.Progress()):
        progress(0, desc=f"loading {choice}...")
        try:
            engine.switch(choice)
        except ModelUnavailable as exc:
            return _warn(str(exc)), _device_line(engine), engine.choice  # the menu goes back to the loaded model
        return f"Loaded {choice}.", _device_line(engine), engine.choice

    def analyze(path: str | None, caption_a: str, caption_b: str, progress=gr.Progress()):
        empty = (None, pd.DataFrame(columns=TABLE_COLUMNS), None, None, None, None)
        if not path:
            return (_warn("Upload an image or pick an example first."),) + empty
        try:
            progress(0, desc="reading the image...")
            image = load_image(path)
            result = engine.analyze(image, caption_a, caption_b, progress)
        except InputError as exc:
            return (_warn(str(exc)),) + empty
        table = pd.DataFrame(result.rows(), columns=TABLE_COLUMNS)
        overlays = [None, None]
        heat = None
        if "sgi" in result.scores:
            evidence = {f"{k}: {s.caption}": s.evidence for k, s in zip("AB", result.scores["sgi"])}
            overlays = [viz.sgi_overlay(image, s.evidence) for s in result.scores["sgi"]]
            heat = viz.sgi_heatmap(evidence)
        status = " ".join(("Done.",) + result.notices)
        return status, image, table, overlays[0], overlays[1], heat, (image, result)

    with gr.Row():
        with gr.Column(scale=1):
            upload = gr.File(label="Image (PNG, JPEG, WebP, TIFF...)", type="filepath", elem_id="upload")
            shown = gr.Image(label="Image as read", type="pil", interactive=False, height=260)
            model = gr.Dropdown(model_choices(engine.choice), value=engine.choice, label="Model", elem_id="model")
            device = gr.Markdown(_device_line(engine), elem_id="device")
        with gr.Column(scale=1):
            caption_a = gr.Textbox(label="Caption A", elem_id="caption-a")
            caption_b = gr.Textbox(label="Caption B", elem_id="caption-b")
            with gr.Row():
                swap_btn = gr.Button("Swap for me", elem_id="swap")
                run_btn = gr.Button("Compare A and B", variant="primary", elem_id="run")
            status = gr.Markdown(elem_id="status")
            table = gr.Dataframe(headers=TABLE_COLUMNS, label="Scores", interactive=False, elem_id="scores")
    if exs:
        gr.Examples([[str(e.path), e.caption_a, e.caption_b] for e in exs], inputs=[upload, caption_a, caption_b],
                    example_labels=[e.name for e in exs], label="Examples")
    with gr.Row():
        overlay_a = gr.Image(label="SGI: best region of each segment of caption A", interactive=False,
                             elem_id="overlay-a")
        overlay_b = gr.Image(label="SGI: best region of each segment of caption B", interactive=False,
                             elem_id="overlay-b")
    heatmap = gr.Plot(label="SGI: segment x region cosine", elem_id="heatmap")
    result = gr.State(None)

    upload.change(preview, upload, [shown, status], api_name="preview")
    swap_btn.click(swap, caption_a, [caption_b, status], api_name="swap")
    model.change(switch_model, model, [status, device, model], api_name="load_model")
    run_btn.click(analyze, [upload, caption_a, caption_b], [status, shown, table, overlay_a, overlay_b, heatmap, result],
                  api_name="analyze")
    return MainInputs(upload, caption_a, caption_b, result)
