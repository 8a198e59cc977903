"""TFLocal's tab (gradio: it sits at the page's layer): each caption token's cross-attention over the image, A and B
side by side, with the scores."""

from __future__ import annotations

import gradio as gr

from explorer.images.inputs import whole_number
from explorer.models.modeling.alignment import HEADS, LAYERS
from explorer.engine import TABLE_COLUMNS, Analysis
from explorer.methods import page_methods
from explorer.methods.tflocal.pictures import attention_pictures
from explorer.ui.guard import guarded, plain
from explorer.ui.main_tab import SCORE_WIDTHS, MainInputs, shown_scores
from explorer.ui.quick_webp import quick_webp
from explorer.ui.serving import Serving
from explorer.ui.shown_tab import draw_while_seen

TITLE = "TFLocal attention"
MEAN = "mean"


def shown_methods() -> list[str]:
    """The methods whose scores the tab's table shows: those before TFLocal on the page, and TFLocal."""
    order = list(page_methods())
    return order[: order.index("tflocal") + 1] if "tflocal" in order else ["tflocal"]


def _token_choices(evidence) -> list[tuple[str, int]]:
    return [(f"{i}: {t}", i) for i, t in enumerate(evidence.tokens)]


def _index(choice: str, what: str, count: int) -> int | None:
    """A layer or head menu's choice as an index (None for the mean); a number outside the menu is refused."""
    return None if choice == MEAN else whole_number(choice, what, 1, count) - 1


@guarded(lambda message: (message, None, gr.update(), gr.update()))
def show_scores(result: tuple | None):
    """The scores table, a note, and each caption's tokens to pick from."""
    if result is None or "tflocal" not in result[1].scores:
        none = [gr.update(choices=[], value=[]) for _ in "AB"]  # one each: gradio takes the value out as it sends
        return "Run a comparison on the first tab: this tab shows its TFLocal evidence.", None, *none
    analysis: Analysis = result[1]
    a, b = (s.evidence for s in analysis.scores["tflocal"])
    note = "" if a.trained else " **Untrained head**: no TFLocal weights for this model, so the attention is random."
    text = (f"Model: **{plain(analysis.model)}**  \nA: *{plain(analysis.captions[0])}*  \n"
            f"B: *{plain(analysis.captions[1])}*{note}")
    pick = lambda ev: gr.update(choices=_token_choices(ev), value=[])  # noqa: E731
    return text, shown_scores(analysis.table(shown_methods())), pick(a), pick(b)


@guarded(lambda message: (None, None, message))
def draw_heatmaps(result: tuple | None, tokens_a: list[int], tokens_b: list[int], layer: str, head: str):
    """The chosen tokens' attention over the image for caption A and B, on one scale."""
    if result is None or "tflocal" not in result[1].scores:
        return None, None, ""
    image, analysis = result
    a, b = (s.evidence for s in analysis.scores["tflocal"])
    layer_i, head_i = _index(layer, "The layer", LAYERS), _index(head, "The head", HEADS)
    pictures = attention_pictures(image, [(a, tokens_a), (b, tokens_b)], layer_i, head_i)
    return (*map(quick_webp, pictures), "")


def build(main: MainInputs, serving: Serving, tab: gr.Tab, shown: gr.State) -> None:
    """Lay out the TFLocal tab inside ``tab``; it draws from the main tab's last comparison while it is in view
    (``shown``, the page's tab in view), and when it is selected."""
    gr.Markdown("Caption tokens attend to the image's patch tokens in each layer of the TFLocal transformer "
                "(over the frozen encoder). Pick tokens (none = all of them), a layer and a head, or their mean.")
    note = gr.Markdown(elem_id="tflocal-note")
    table = gr.Dataframe(headers=TABLE_COLUMNS, label="Scores", interactive=False, elem_id="tflocal-scores",
                         column_widths=SCORE_WIDTHS, wrap=True)
    with gr.Row():
        layer = gr.Dropdown([MEAN] + [str(i + 1) for i in range(LAYERS)], value=MEAN, label="Layer")
        head = gr.Dropdown([MEAN] + [str(i + 1) for i in range(HEADS)], value=MEAN, label="Head")
    with gr.Row():
        with gr.Column():
            tokens_a = gr.CheckboxGroup([], label="Tokens of caption A", elem_id="tokens-a")
            heat_a = gr.Image(label="TFLocal attention, caption A", interactive=False, elem_id="attention-a")
        with gr.Column():
            tokens_b = gr.CheckboxGroup([], label="Tokens of caption B", elem_id="tokens-b")
            heat_b = gr.Image(label="TFLocal attention, caption B", interactive=False, elem_id="attention-b")
    drawn_note = gr.Markdown(elem_id="tflocal-draw-note")
    inputs = [main.result, tokens_a, tokens_b, layer, head]
    drawn = [heat_a, heat_b, drawn_note]
    draw_while_seen(tab, shown, main.result, [(show_scores, [main.result], [note, table, tokens_a, tokens_b]),
                                              (draw_heatmaps, inputs, drawn)], serving.light)
    for control in (tokens_a, tokens_b, layer, head):
        control.change(draw_heatmaps, inputs, drawn, trigger_mode="always_last", **serving.light)
