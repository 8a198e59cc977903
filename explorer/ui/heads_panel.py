"""The maps tab's heads panel: the layer x head grid of each head's share of cos(A) - cos(B), and for the head picked,
its map over the picture, its TextSpan texts and what mean-ablating it does (``explorer/explain/head_view.py``)."""

from __future__ import annotations

import html

import gradio as gr

from explorer.engine import Engine
from explorer.explain.head_view import WHERE, ablation_sentence, head_menu, head_view, recorded_sentence
from explorer.explain.heads import applies, why_not
from explorer.figures.head_figures import grid_figure, head_map_figure
from explorer.images.inputs import clean_caption_pair, read_image_kept
from explorer.images.regions import visible_box
from explorer.ui.analysed import seen_state
from explorer.ui.guard import guarded, plain
from explorer.ui.main_tab import MainInputs
from explorer.ui.serving import Serving

TITLE = "Which heads tell A from B (the embedding split by head)"
INTRO = ("The image embedding is a sum of each layer's and head's direct part (Gandelsman et al., ICLR 2024), so the "
         "margin cos(A) - cos(B) is too: the grid shows each head's share, orange towards A, blue towards B. Pick a "
         "head to see its share per patch over the picture, the texts that span what it writes over the world's "
         "pictures (TextSpan, from the world's vocabulary and your two captions) and what mean-ablating it does.")
WAITING = "Give an image and two captions on the first tab, then open this panel's head menu."


def _texts(view) -> str:
    rows = "".join(f"<li>{html.escape(t)} <small>({100 * e:.0f}% of its variance)</small></li>"
                   for t, e in zip(view.texts, view.explained))
    layer, head = view.head
    return (f'<div id="heads-texts-list"><b>What layer {layer}, head {head} writes</b> (TextSpan over '
            f"{view.pictures} world pictures, in the order chosen):<ol>{rows}</ol></div>")


@guarded(lambda message: (message, gr.update(), None, None, "", ""))
def draw(engine: Engine, result: tuple | None, path: str | None, caption_a: str, caption_b: str, choice: str,
         value: str | None):
    """The note, the head menu, the grid, the head's map, its texts and the ablation in sentences."""
    if not path:
        return WAITING, gr.update(choices=[], value=None), None, None, "", ""
    captions = clean_caption_pair(caption_a, caption_b)
    loaded = engine.model(choice)
    if not applies(loaded.encoder.model):
        return why_not(loaded.encoder.model), gr.update(choices=[], value=None), None, None, "", ""
    image, _ = read_image_kept(path)
    seen = seen_state(result, image, captions, loaded.label)  # the view the comparison read: the table's cosines
    view = head_view(loaded.encoder, seen, captions, value)
    box = visible_box(seen.image.width, seen.image.height, loaded.encoder.preprocess)
    note = (f"Model: **{plain(loaded.label)}**; cos(A) {view.shares.cosines[0]:.4f}, cos(B) "
            f"{view.shares.cosines[1]:.4f}.")
    said = " ".join(s for s in (ablation_sentence(view), recorded_sentence(loaded.label)) if s)
    return (note, gr.update(choices=head_menu(view.shares), value=f"{view.head[0]}.{view.head[1]}"),
            grid_figure(view), head_map_figure(seen.image, box, view), _texts(view), said)


def build(engine: Engine, main: MainInputs, serving: Serving, min_width: int) -> None:
    """Lay out the panel under the tab's maps, closed; open, it draws for a new comparison and when a head is picked
    (a closed panel costs a comparison nothing)."""
    opened = gr.State(False)
    with gr.Accordion(TITLE, open=False, elem_id="heads") as panel:
        gr.Markdown(INTRO)
        note = gr.Markdown(elem_id="heads-note")
        head = gr.Dropdown([], label="Head (largest share first)", elem_id="heads-menu")
        with gr.Row(elem_id="heads-figures"):
            grid = gr.Plot(label="Each head's share of the margin", elem_id="heads-grid", min_width=min_width)
            picture = gr.Plot(label="The head's map", elem_id="heads-map", min_width=min_width)
        texts = gr.HTML(elem_id="heads-texts")
        ablation = gr.Markdown(elem_id="heads-ablation")
        gr.Markdown(f"The record behind the ablation's second sentence: `{WHERE}` (`python -m explorer heads`; "
                    f"docs/heads.md reads it).")

    def draw_panel(result, path, caption_a, caption_b, choice, chosen, is_open=True):
        if not is_open:
            return (gr.update(),) * 6
        return draw(engine, result, path, caption_a, caption_b, choice, chosen)

    inputs = [main.result, main.upload, main.caption_a, main.caption_b, main.choice, head]
    outputs = [note, head, grid, picture, texts, ablation]
    panel.expand(lambda: True, None, opened).then(draw_panel, inputs, outputs, **serving.heavy)
    panel.collapse(lambda: False, None, opened)
    main.result.change(draw_panel, [*inputs, opened], outputs, **serving.heavy)
    head.input(draw_panel, inputs, outputs, trigger_mode="always_last", **serving.heavy)
