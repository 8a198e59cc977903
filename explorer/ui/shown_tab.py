"""Which tab a page has in view, so that a tab draws while it is seen, not for every caption edit made elsewhere."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import gradio as gr

Step = tuple[Callable[..., Any], list, list]  # a handler, its inputs and its outputs


def follow_tabs(shown: gr.State, tabs: Sequence[gr.Tab]) -> None:
    """Keep ``shown``, a per-page state, at the id of the tab in view: each tab's select event sets it."""
    for tab in tabs:
        tab.select(lambda tab_id=tab.id: tab_id, None, shown, queue=False)


def while_shown(tab_id: str, outputs: int, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` for an event whose last input is ``follow_tabs``' state: run while tab ``tab_id`` is in view, else
    nothing is sent (the tab draws anew when it is selected)."""
    def gated(*args: Any) -> Any:
        *inputs, shown = args
        return fn(*inputs) if shown == tab_id else (gr.update(),) * outputs

    gated.__name__ = fn.__name__
    return gated


def draw_while_seen(tab: gr.Tab, shown: gr.State, result: gr.State, steps: Sequence[Step], options: dict) -> None:
    """Run ``steps`` one after the other when ``tab`` is selected, and for each new ``result`` while it is in view."""
    on_result, on_select = result.change, tab.select
    for fn, inputs, outputs in steps:
        on_result = on_result(while_shown(tab.id, len(outputs), fn), [*inputs, shown], outputs, **options).then
        on_select = on_select(fn, inputs, outputs, **options).then
