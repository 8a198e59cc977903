"""The whole page: tabs assembled around one engine, its queue set for many users at once."""

from __future__ import annotations

import gradio as gr

from explorer import settings
from explorer.engine import Engine
from explorer.ui import binding_tab, browse_tab, main_tab, powerset_tab, share_link, tflocal_tab, tour
from explorer.ui.serving import Serving
from explorer.ui.shown_tab import follow_tabs

TITLE = "Binding explorer"
INTRO = (
    "Why do dual encoders confuse *a black dog and a white cat* with *a white dog and a black cat*? "
    "Give an image and two captions that differ by a swap, and compare the global cosine with "
    "structure-guided inference (SGI), which matches caption segments to image regions, the TFLocal "
    "alignment transformer's attention, and PowerCLIP's region-subset to phrase alignment."
)


def build_app(engine: Engine, serving: Serving | None = None) -> gr.Blocks:
    """The page, queued: heavy events share ``serving.heavy_concurrency``, light ones never wait behind them."""
    serving = serving or Serving.of(settings.current())
    with gr.Blocks(title=TITLE) as demo:
        gr.Markdown(f"# {TITLE}\n{INTRO}")
        tour_step, tour_text = tour.layout()
        shown = gr.State("main")  # the tab in view: the method tabs draw while they are seen
        with gr.Tabs() as tabs:
            with gr.Tab("Compare captions", id="main") as main_page:
                main = main_tab.build(engine, serving)
            with gr.Tab("TFLocal attention", id="tflocal") as tflocal_page:
                tflocal_tab.build(main, serving, tflocal_page, shown)
            with gr.Tab("PowerCLIP powerset", id="powerset") as powerset_page:
                powerset_tab.build(main.result, serving, powerset_page, shown)
            with gr.Tab("Browse a benchmark", id="browse") as browse_page:
                browse_tab.build(engine, main, tabs, "main", serving)
            with gr.Tab("Binding geometry", id="binding") as binding_page:
                binding_tab.build(engine, main.choice, serving)
        pages = [main_page, tflocal_page, powerset_page, browse_page, binding_page]
        follow_tabs(shown, pages)
        tour.wire(tour_step, tour_text, main, tabs, shown, serving)
        share_link.wire(demo, engine, main, tabs, pages, shown, serving)
    demo.queue(default_concurrency_limit=serving.heavy_concurrency, max_size=serving.queue_size)
    return demo
