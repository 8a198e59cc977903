"""The whole page: tabs assembled around one engine."""

from __future__ import annotations

import gradio as gr

from explorer.engine import Engine
from explorer.ui import binding_tab, browse_tab, main_tab, powerset_tab, tflocal_tab

TITLE = "Binding explorer"
INTRO = (
    "Why do dual encoders confuse *a black dog and a white cat* with *a white dog and a black cat*? "
    "Give an image and two captions that differ by a swap, and compare the global cosine with "
    "structure-guided inference (SGI), which matches caption segments to image regions, the TFLocal "
    "alignment transformer's attention, and PowerCLIP's region-subset to phrase alignment."
)


def build_app(engine: Engine) -> gr.Blocks:
    with gr.Blocks(title=TITLE) as demo:
        gr.Markdown(f"# {TITLE}\n{INTRO}")
        with gr.Tabs() as tabs:
            with gr.Tab("Compare captions", id="main"):
                main = main_tab.build(engine)
            with gr.Tab("TFLocal attention", id="tflocal"):
                tflocal_tab.build(main)
            with gr.Tab("PowerCLIP powerset", id="powerset"):
                powerset_tab.build(main.result)
            with gr.Tab("Browse a benchmark", id="browse"):
                browse_tab.build(engine, main, tabs, "main")
            with gr.Tab("Binding geometry", id="binding"):
                binding_tab.build(engine)
    return demo
