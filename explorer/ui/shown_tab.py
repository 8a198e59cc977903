"""Which tab a page has in view, so that a tab draws while it is seen, not for every caption edit made elsewhere."""

from __future__ import annotations

from typing import Any, Callable

import gradio as gr


def follow_tabs(shown: gr.State, tabs: dict[str, gr.Tab]) -> None:
    """Keep ``shown``, a per-page state, at the id of the tab in view: each tab's select event sets it."""
    for tab_id, tab in tabs.items():
        tab.select(lambda tab_id=tab_id: tab_id, None, shown, queue=False)


def while_shown(tab_id: str, outputs: int, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` for an event whose last input is ``follow_tabs``' state: run while tab ``tab_id`` is in view, else
    nothing is sent (the tab draws anew when it is selected)."""
    def gated(*args: Any) -> Any:
        *inputs, shown = args
        return fn(*inputs) if shown == tab_id else (gr.update(),) * outputs

    gated.__name__ = fn.__name__
    return gated
