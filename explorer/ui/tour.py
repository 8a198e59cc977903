"""The guided tour: choosing a step loads its example on the main tab (the page then compares it and follows it),
opens the step's tab and says what to look at there, and what the example's comparison shows on the page's model
once it is there (each new comparison says it again). The page then scrolls to what the step points at.
"""

from __future__ import annotations

import json

import gradio as gr

from explorer.methods import tour_steps
from explorer.ui.guard import guarded
from explorer.ui.main_tab import MainInputs
from explorer.ui.serving import Serving
from explorer.world.examples import examples

# What a step points at where it names nothing itself (``Step.target``), by its tab (the page's element ids)
TAB_TARGETS = {"main": "scores", "binding": "binding-run", "looks": "looks-maps", "browse": "browse-benchmark"}
# the step's element brought to the top of the screen once its tab is drawn (the step's words stay at its foot,
# the page's CSS); "panel>element": the closed panel opened first
SCROLL = """(title) => { const target = (%s)[title]; if (!target) return;
  const [panel, element] = target.includes('>') ? target.split('>') : [null, target];
  setTimeout(() => {
    const header = panel && document.querySelector('#' + panel + ' > button.label-wrap');
    if (header && !header.classList.contains('open')) header.click();
    setTimeout(() => { const el = document.getElementById(element);
      if (el) el.scrollIntoView({behavior: 'instant', block: 'start'}); }, panel ? 500 : 0); }, 600); }"""


def target(step) -> str:
    """The element id of what ``step`` points at (``panel>element`` inside a closed panel): its own, else its tab's."""
    return step.target or TAB_TARGETS.get(step.tab, "")


def layout() -> tuple[gr.Radio, gr.Markdown]:
    """The tour's step picker and its text, laid out where this is called (above the tabs)."""
    named = {e.name for e in examples()}
    with gr.Accordion("Guided tour, for teaching: why the swap fools the global cosine, and what each method does",
                      open=False):
        step = gr.Radio([s.title for s in tour_steps() if s.example in named], label="Step", elem_id="tour-step")
        look = gr.Markdown(elem_id="tour-look")
    return step, look


def wire(step: gr.Radio, look: gr.Markdown, main: MainInputs, tabs: gr.Tabs, shown: gr.State, serving: Serving,
         results: dict[str, gr.State]) -> None:
    """A chosen step fills the main tab's inputs with its example, makes the page follow them, and opens its tab
    (``shown``, the page's tab in view, set with it: a tab opened so draws the comparison when it comes). ``results``:
    the page's other results a step may need (``explorer.world.tour.NEEDS``), by that need's name; a new one, like a
    new comparison, says the step's words again."""
    by_name = {e.name: e for e in examples()}
    by_title = {s.title: s for s in tour_steps()}

    needs = list(results)

    def words(chosen, result: tuple | None, extras: tuple) -> str:
        extra = dict(zip(needs, extras)).get(chosen.needs)
        return f"**{chosen.title}.** {chosen.says(result, extra)}"

    def go(title: str | None, result: tuple | None, *extras):
        if title not in by_title:
            return (gr.update(),) * 7
        chosen = by_title[title]
        example = by_name[chosen.example]
        return (str(example.path), example.caption_a, example.caption_b, True, gr.Tabs(selected=chosen.tab),
                chosen.tab, words(chosen, result, extras))

    @guarded(lambda message: message)
    def restate(title: str | None, result: tuple | None, *extras):
        """The step's words again for the page's new comparison or result: its numbers where they are the step's
        example's."""
        return words(by_title[title], result, extras) if title in by_title else gr.update()

    inputs = [step, main.result, *results.values()]
    step.change(go, inputs, [main.upload, main.caption_a, main.caption_b, main.following, tabs, shown,
                                          look], api_name="tour", **serving.light).then(
        None, step, None, js=SCROLL % json.dumps({s.title: target(s) for s in tour_steps()}))
    for changed in (main.result, *results.values()):
        changed.change(restate, inputs, look, api_name=False, **serving.light)
