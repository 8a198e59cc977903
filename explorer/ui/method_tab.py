"""Every method's tab, built from its declaration (``MethodInfo.tab``, ``explorer.methods.tabs``): its parts laid
out in order, its steps drawn from the main tab's last comparison while the tab is in view, on the light queue,
each guarded so that a failure is a message on the tab."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import gradio as gr

from explorer.engine import TABLE_COLUMNS
from explorer.methods import REGISTRY
from explorer.methods.tabs import Column, Figure, Menu, Part, Picks, Picture, Row, Scores, Step, Table, Text
from explorer.ui.guard import guarded
from explorer.ui.main_tab import SCORE_WIDTHS, MainInputs, shown_scores
from explorer.ui.quick_webp import quick_webp
from explorer.ui.serving import Serving
from explorer.ui.shown_tab import draw_while_seen

WAITING = "Run a comparison on the first tab: this tab shows its {} evidence."
# a drawn picture carries its text in its pixels, sized for its width: two in a row stand one above the other on a
# phone, each the screen's width, so that their text is read at 11 px or more (at half of it, about 6)
PICTURE_MIN_WIDTH = 320


def tabbed(names: Sequence[str]) -> list[str]:
    """Those of the methods ``names`` that have a tab, in order."""
    return [name for name in names if REGISTRY[name].info.tab is not None]


def _component(part: Part) -> gr.components.Component:
    """The gradio component of one declared part, made where this is called."""
    if isinstance(part, Text):
        return gr.Markdown(elem_id=part.elem_id)
    if isinstance(part, Scores):
        return gr.Dataframe(headers=TABLE_COLUMNS, label=part.label, interactive=False, elem_id=part.elem_id,
                            column_widths=SCORE_WIDTHS, wrap=True)
    if isinstance(part, Table):
        return gr.Dataframe(headers=list(part.headers), label=part.label, interactive=False, elem_id=part.elem_id,
                            elem_classes=["wide-table"] if part.wide else None, wrap=True)
    if isinstance(part, Picture):
        return gr.Image(label=part.label, interactive=False, elem_id=part.elem_id, min_width=PICTURE_MIN_WIDTH)
    if isinstance(part, Figure):
        return gr.Plot(label=part.label, elem_id=part.elem_id)
    if isinstance(part, Menu):  # a menu filled by a step starts empty, nothing chosen
        chosen = {"value": part.default} if part.choices else {}
        return gr.Dropdown(list(part.choices), label=part.label, elem_id=part.elem_id, **chosen)
    if isinstance(part, Picks):
        return gr.CheckboxGroup([], label=part.label, elem_id=part.elem_id)
    raise TypeError(f"a method's tab cannot show a {type(part).__name__}")


def _lay_out(parts: Sequence[Part], made: dict[int, gr.components.Component]) -> None:
    """Make ``parts``' components in order, rows and columns around theirs; ``made``: each part's (by its id)."""
    for part in parts:
        if isinstance(part, (Row, Column)):
            with gr.Row() if isinstance(part, Row) else gr.Column():
                _lay_out(part.parts, made)
        else:
            made[id(part)] = _component(part)


def _sent(part: Part, value: Any) -> Any:
    """A step's value for ``part`` as the page sends it."""
    if isinstance(part, Scores):
        return shown_scores(value)
    if isinstance(part, Picture):
        return quick_webp(value)
    if isinstance(part, (Menu, Picks)):  # one update each: gradio takes the value out of an update as it sends it
        return gr.update(choices=list(value), value=part.default if isinstance(part, Menu) else [])
    return value


def _waiting(part: Part, message: str) -> Any:
    """What ``part`` shows while no comparison has the method's scores: menus emptied, a waiting note says so."""
    if isinstance(part, Text):
        return message if part.waiting else ""
    if isinstance(part, (Menu, Picks)):
        return gr.update(choices=[], value=None if isinstance(part, Menu) else [])
    return None


def _failed(part: Part, message: str) -> Any:
    """What ``part`` shows when its step failed: the message in its text, its pictures cleared, its menus kept."""
    if isinstance(part, Text):
        return message
    return gr.update() if isinstance(part, (Menu, Picks)) else None


def handler(name: str, step: Step) -> Callable[..., tuple]:
    """Method ``name``'s ``step`` as the page calls it: ``(result, *controls' values)``, ``result`` the main tab's
    (image, Analysis) or None; named as the step's function (its name in the page's API), guarded."""
    waiting = WAITING.format(REGISTRY[name].info.label)

    def run(result: tuple | None, *values: Any) -> tuple:
        if result is None or name not in result[1].scores:
            return tuple(_waiting(part, waiting) for part in step.outputs)
        return tuple(map(_sent, step.outputs, step.fn(*result, *values)))

    run.__name__ = run.__qualname__ = step.fn.__name__
    run.__doc__ = step.fn.__doc__
    return guarded(lambda message: tuple(_failed(part, message) for part in step.outputs))(run)


def handlers(name: str) -> dict[str, Callable[..., tuple]]:
    """Method ``name``'s tab's handlers, by their names in the page's API."""
    return {step.fn.__name__: handler(name, step) for step in REGISTRY[name].info.tab.steps}


def build(name: str, main: MainInputs, serving: Serving, tab: gr.Tab, shown: gr.State) -> None:
    """Lay out method ``name``'s tab inside ``tab``; it draws from the main tab's last comparison while it is in view
    (``shown``, the page's tab in view), when it is selected, and when one of a step's controls changes."""
    declared = REGISTRY[name].info.tab
    gr.Markdown(declared.about)
    made: dict[int, gr.components.Component] = {}
    _lay_out(declared.layout, made)
    steps = [(handler(name, step), [main.result, *(made[id(c)] for c in step.controls)],
              [made[id(p)] for p in step.outputs]) for step in declared.steps]
    draw_while_seen(tab, shown, main.result, steps, serving.light)
    for step, (fn, inputs, outputs) in zip(declared.steps, steps):
        for control in step.controls:
            made[id(control)].change(fn, inputs, outputs, trigger_mode="always_last", **serving.light)
