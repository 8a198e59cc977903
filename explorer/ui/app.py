"""The whole page: tabs assembled around one engine, its queue set for many users at once."""

from __future__ import annotations

import importlib
from types import ModuleType

import gradio as gr

from explorer import checkpoints, seed_standing, settings
from explorer.engine import Engine
from explorer.methods import REGISTRY
from explorer.ui import binding_tab, browse_tab, looks_tab, main_tab, share_link, tour
from explorer.ui.serving import Serving
from explorer.ui.shown_tab import follow_tabs

TITLE = "Binding explorer"
INTRO = (
    "Why do dual encoders confuse *a black dog and a white cat* with *a white dog and a black cat*? "
    "Give an image and two captions that differ by a swap, and compare the global cosine with "
    "structure-guided inference (SGI), which matches caption segments to image regions, the TFLocal "
    "alignment transformer's attention, and PowerCLIP's region-subset to phrase alignment."
)


def method_tabs(engine: Engine) -> list[tuple[str, ModuleType]]:
    """Each of the engine's methods that has a tab, with its tab's module (``explorer/ui/<tab>.py``: a ``TITLE`` and
    a ``build(main, serving, tab, shown)``), as the registry names it."""
    tabs = [(name, REGISTRY[name].info.tab) for name in engine.method_names]
    return [(name, importlib.import_module(f"explorer.ui.{tab}")) for name, tab in tabs if tab]


def build_app(engine: Engine, serving: Serving | None = None) -> gr.Blocks:
    """The page, queued: heavy events share ``serving.heavy_concurrency``, light ones never wait behind them."""
    serving = serving or Serving.of(settings.current())
    with gr.Blocks(title=TITLE) as demo:
        gr.Markdown(f"# {TITLE}\n{INTRO} {seed_standing.brief(checkpoints.EMBEDDED.record)}")
        tour_step, tour_text = tour.layout()
        shown = gr.State("main")  # the tab in view: the method tabs draw while they are seen
        with gr.Tabs() as tabs:
            with gr.Tab("Compare captions", id="main") as main_page:
                main = main_tab.build(engine, serving)
            method_pages = []
            for name, tab in method_tabs(engine):  # a method's tab, named after it
                with gr.Tab(tab.TITLE, id=name) as page:
                    tab.build(main, serving, page, shown)
                method_pages.append(page)
            with gr.Tab(looks_tab.TITLE, id="looks") as looks_page:  # drawn only while seen: no analysis waits for it
                looks_tab.build(engine, main, serving, looks_page, shown)
            with gr.Tab("Browse a benchmark", id="browse") as browse_page:
                browse_tab.build(engine, main, tabs, "main", serving)
            with gr.Tab("Binding geometry", id="binding") as binding_page:
                binding_tab.build(engine, main.choice, serving)
        pages = [main_page, *method_pages, looks_page, browse_page, binding_page]
        follow_tabs(shown, pages)
        tour.wire(tour_step, tour_text, main, tabs, shown, serving)
        share_link.wire(demo, engine, main, tabs, pages, shown, serving)
    demo.queue(default_concurrency_limit=serving.heavy_concurrency, max_size=serving.queue_size)
    return demo
