"""The whole page: tabs assembled around one engine, its queue set for many users at once."""

from __future__ import annotations

import warnings
from typing import Sequence

import gradio as gr

from explorer.core import settings
from explorer.engine import Engine
from explorer.methods import REGISTRY
from explorer.models import checkpoints, seed_standing
from explorer.ui import (
    binding_tab, browse_tab, looks_tab, main_tab, method_tab, pad, sessions, share_link, swap_panel, tour,
)
from explorer.ui.guard import page_closed
from explorer.ui.serving import Serving
from explorer.ui.shown_tab import follow_tabs

TITLE = "Binding explorer"
INTRO = (
    "Models like CLIP turn a picture and a sentence into numbers and score how well they match. They often give "
    "*a black dog and a white cat* and *a white dog and a black cat* almost the same score: they see which colours and "
    "animals are there, not which colour belongs to which animal. Give this page a picture (upload one, draw one, or "
    "pick an example) and two captions that swap two words, and see which caption each way of scoring prefers, and "
    "why: {}."
)


def intro(methods: Sequence[str]) -> str:
    """The page's introduction, each of ``methods`` said in its own few words (``MethodInfo.intro``)."""
    said = [REGISTRY[name].info.intro for name in methods if REGISTRY[name].info.intro]
    return INTRO.format(", and ".join([", ".join(said[:-1]), said[-1]]) if len(said) > 1 else "".join(said))


ABOUT_MODEL = "About the default model"  # the shipped model's origin, for those who ask (folded away)

# The page's own CSS. Tables: cells that wrap between words, a compact font on a phone, a full scroll bar where the
# browser draws one and, on a phone, a word on the tables that may still scroll, so that every column is in the
# table's box or a said scroll away. Pictures and figures: the block's label and its buttons on a
# line of their own above the picture, never over its top corners; the plain pictures framed (a drawing on white
# would melt into the page; the drawn ones carry their frame). Notices: a warning box, not a line of text.
CSS = """
.table-wrap .virtual-table-viewport { scrollbar-width: auto !important; scrollbar-color: #8c8c8c #ececec !important; }
.table-wrap td, .table-wrap th { white-space: normal !important; }  /* columns measured as wrapped: they fit */
.table-wrap .body-cell span, .table-wrap .header-cell span { word-break: normal !important;
  overflow-wrap: normal !important; }  /* wrapped between words, never inside a number */
@media (max-width: 640px) {  /* the measuring rows (td) and the rows shown (.body-cell) in one compact font */
  .table-wrap :is(td, th, .body-cell, .header-cell), .table-wrap :is(td, th, .body-cell, .header-cell) * {
    font-family: var(--font) !important; font-size: 13px !important; }
  .table-wrap :is(td, th, .body-cell, .header-cell) { padding: 4px !important; }
  .table-wrap :is(th, .header-cell), .table-wrap :is(th, .header-cell) * { font-size: 12px !important; }
  #two-by-two { display: none !important; }  /* the 2 x 2's verdicts: its grids below say the same, and fit */
  .wide-table .header-row .label p::after {
    content: " (scroll the table sideways for every column)"; font-style: italic; }
}
.gradio-container label[data-testid="block-label"].float { position: static; display: inline-flex;
  max-width: calc(100% - 7.5rem); margin: var(--block-label-margin); white-space: normal; }
.gradio-container .image-container:has(> .top-panel) { position: static; }
/* a picture's block: its label line, then the picture in the height left (never pushed past the block's bottom) */
.gradio-container .block:has(> label[data-testid="block-label"].float + .image-container) { display: flex;
  flex-direction: column; flex-wrap: nowrap; }
.gradio-container .block > label[data-testid="block-label"].float + .image-container { flex: 0 1 auto;
  min-height: 0; }
.gradio-container .block > .image-container > button, .gradio-container .block > .image-container .image-frame {
  height: 100%; max-height: 100%; min-height: 0; }
#image-read img, #model-sees img, #browse-image-0 img, #browse-image-1 img { outline: 1px solid #8c8c8c; outline-offset: -1px;
  object-fit: contain; width: auto; max-width: 100%; height: auto; max-height: 100%; }
#heatmap { max-width: 820px; margin-left: auto; margin-right: auto; }  /* a caption's few segments across */
.two-by-two-grids { display: flex; flex-wrap: wrap; gap: 12px; }  /* the 2 x 2's grids, one a method */
.two-by-two-grid { margin: 0; flex: 1 1 240px; max-width: 340px; }
.two-by-two-grid table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
.two-by-two-grid :is(td, th) { border: 1px solid #c8c8c8; padding: 4px 6px; text-align: center; white-space: nowrap;
  font-size: 14px; }
.two-by-two-grid td.own { outline: 2px solid #333; outline-offset: -2px; font-weight: 600; }
.two-by-two-grid .mark { color: #1a6b35; margin-left: 2px; }
.two-by-two-grid .reason { font-size: 0.9em; margin: 4px 0 0; }
.two-by-two-grid .caution { font-size: 0.9em; margin: 4px 0 0; padding: 2px 6px; background: #fff4e0;
  border-left: 4px solid #b26b00; color: #4a2c00; }
.notice { border: 1px solid #b26b00; border-left-width: 6px; background: #fff4e0; color: #4a2c00;
  padding: 8px 12px; border-radius: 4px; margin-top: 6px; }
"""


def build_app(engine: Engine, serving: Serving | None = None) -> gr.Blocks:
    """The page, queued: heavy events share ``serving.heavy_concurrency``, light ones never wait behind them."""
    serving = serving or Serving.of(settings.current())
    with warnings.catch_warnings():  # gradio 6 takes css at launch; explorer.page and the tests launch this page
        warnings.filterwarnings("ignore", "The parameters have been moved", UserWarning)
        blocks = gr.Blocks(title=TITLE, css=CSS)
    with blocks as demo:
        gr.Markdown(f"# {TITLE}\n{intro(engine.method_names)}", elem_id="intro")
        standing = seed_standing.brief(checkpoints.EMBEDDED.record)
        if standing:
            with gr.Accordion(ABOUT_MODEL, open=False):
                gr.Markdown(standing, elem_id="about-model")
        tour_step, tour_text = tour.layout()
        shown = gr.State("main")  # the tab in view: the method tabs draw while they are seen
        with gr.Tabs() as tabs:
            with gr.Tab("Compare captions", id="main") as main_page:
                main = main_tab.build(engine, serving)
                with gr.Accordion("Draw a picture, have captions proposed, and see both sides of the swap", open=False,
                                  elem_id="draw-and-swap"):
                    pad.build(main.upload, serving)
                    swap = swap_panel.build(engine, serving, main)
            method_pages = []
            for name in method_tab.tabbed(engine.method_names):  # a method's tab, named after it
                with gr.Tab(REGISTRY[name].info.tab.title, id=name) as page:
                    method_tab.build(name, main, serving, page, shown)
                method_pages.append(page)
            with gr.Tab(looks_tab.TITLE, id="looks") as looks_page:  # drawn only while seen: no analysis waits for it
                looks_tab.build(engine, main, serving, looks_page, shown)
            with gr.Tab("Browse a benchmark", id="browse") as browse_page:
                browse_tab.build(engine, main, tabs, "main", serving)
            with gr.Tab("Binding geometry", id="binding") as binding_page:
                binding = binding_tab.build(engine, main.choice, serving)
        pages = [main_page, *method_pages, looks_page, browse_page, binding_page]
        follow_tabs(shown, pages)
        tour.wire(tour_step, tour_text, main, tabs, shown, serving, {"binding": binding, "swap": swap})
        share_link.wire(demo, engine, main, tabs, pages, shown, serving)
        demo.unload(page_closed)  # a closed page's running requests stop (gradio cancels none of them by itself)
    sessions.serving(demo)
    demo.queue(default_concurrency_limit=serving.heavy_concurrency, max_size=serving.queue_size)
    return demo
