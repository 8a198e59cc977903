"""The guided tour: choosing a step loads its example on the main tab (the page then compares it and follows it),
opens the step's tab and says what to look at there."""

from __future__ import annotations

import gradio as gr

from explorer.examples import examples
from explorer.tour import STEPS
from explorer.ui.main_tab import MainInputs
from explorer.ui.serving import Serving


def layout() -> tuple[gr.Radio, gr.Markdown]:
    """The tour's step picker and its text, laid out where this is called (above the tabs)."""
    named = {e.name for e in examples()}
    with gr.Accordion("Guided tour, for teaching: why the swap fools the global cosine, and what each method does",
                      open=False):
        step = gr.Radio([s.title for s in STEPS if s.example in named], label="Step", elem_id="tour-step")
        look = gr.Markdown(elem_id="tour-look")
    return step, look


def wire(step: gr.Radio, look: gr.Markdown, main: MainInputs, tabs: gr.Tabs, shown: gr.State, serving: Serving) -> None:
    """A chosen step fills the main tab's inputs with its example, makes the page follow them, and opens its tab
    (``shown``, the page's tab in view, set with it: a tab opened so draws the comparison when it comes)."""
    by_name = {e.name: e for e in examples()}
    by_title = {s.title: s for s in STEPS}

    def go(title: str | None):
        if title not in by_title:
            return (gr.update(),) * 7
        chosen = by_title[title]
        example = by_name[chosen.example]
        return (str(example.path), example.caption_a, example.caption_b, True, gr.Tabs(selected=chosen.tab),
                chosen.tab, f"**{chosen.title}.** {chosen.look}")

    step.change(go, step, [main.upload, main.caption_a, main.caption_b, main.following, tabs, shown, look],
                api_name="tour", **serving.light)
