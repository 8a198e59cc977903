"""Where the model looks: A's and B's relevance maps of the global cosine for a segment or the whole caption, from an
explainer that applies to the page's model, or from a scoring method's evidence for the same segment (each method
with a ``segment_map``: TFLocal's, SGI's, PowerCLIP's)."""

from __future__ import annotations

from typing import Any

import gradio as gr
from PIL import Image

from explorer.engine import Engine
from explorer.explain import looks
from explorer.figures import viz_maps
from explorer.images.inputs import clean_caption_pair, read_image_kept, whole_number
from explorer.methods import REGISTRY as METHOD_REGISTRY
from explorer.ui import heads_panel, interactions_panel
from explorer.ui.analysed import compared, seen_state
from explorer.ui.guard import guarded, plain
from explorer.ui.main_tab import MainInputs
from explorer.ui.serving import Serving
from explorer.ui.shown_tab import draw_while_seen

TITLE = "Where the model looks"
INTRO = ("Which parts of the image make each caption's global cosine, per segment or for the whole caption, read off "
         "the model as loaded with no training (an explainer from the literature); one click shows the same "
         "segment as {methods} see it.")
WAITING = "Give an image and two captions on the first tab: this tab shows where the model looks for each."
MAP_MIN_WIDTH = 340  # a map's least width on the page: two fit side by side on a desktop, one a row on a phone
POINT_KEY = " \u00d7 marks where each map points: its peak, or a crop's or a subset's centre."


def _segment(value: Any, menu: list[tuple[str, int]]) -> int:
    """The segment menu's choice as an index; a choice the captions no longer have (an edit) is the whole caption."""
    chosen = looks.WHOLE if value in (None, "") else whole_number(value, "The segment", looks.WHOLE, 99)
    return chosen if chosen in [v for _, v in menu] else looks.WHOLE


@guarded(lambda message: (message, gr.update(), gr.update(), None, None, "", ""))
def draw(engine: Engine, path: str | None, caption_a: str, caption_b: str, choice: str, result: tuple | None,
         explainer: str | None, segment: Any, source: str):
    """The note, both menus (the explainers that apply to the page's model, the captions' segments), A's and B's maps,
    the tokens shaded by their share and how to read the maps. The image and captions are the main tab's: the
    explainers need no comparison (the maps are there before one has run, or where it failed); the methods' maps come
    from it."""
    if not path:
        empty = [gr.update(choices=[], value=None) for _ in "AB"]  # one each: gradio takes the value out as it sends
        return WAITING, *empty, None, None, "", ""
    image, _ = read_image_kept(path)
    captions = clean_caption_pair(caption_a, caption_b)
    loaded = engine.model(choice)
    explainers = looks.explainer_menu(loaded.encoder.model)
    if not explainers:
        return (f"No explainer applies to {plain(loaded.label)}'s image tower "
                f"({type(loaded.encoder.model.visual).__name__}).", gr.update(choices=[], value=None), gr.update(),
                None, None, "", "")
    names, said = [name for _, name in explainers], []
    if explainer not in names:  # none chosen yet, or the page's model changed to a tower the choice does not read
        said = [f"{explainer} does not apply to this model's image tower: showing {names[0]}."] if explainer else []
        explainer = names[0]
    segments = looks.segment_menu(captions)
    chosen = _segment(segment, segments)
    scores = compared(result, image, captions, loaded.label)
    seen = seen_state(result, image, captions, loaded.label)  # the view the comparison read: the table's cosines
    shown = looks.looks(loaded.encoder, seen, captions, scores, explainer, chosen, source)
    label = dict((n, lab) for lab, n in explainers)[explainer]
    notes = [f"**{plain(note)}**" for note in (*shown.notes, *said)]
    note = "  \n".join([f"Model: **{plain(loaded.label)}** on **{loaded.device}**; explainer: {plain(label)}.", *notes])
    return (note, gr.update(choices=explainers, value=explainer), gr.update(choices=segments, value=chosen),
            *viz_maps.maps_figures(image, shown), viz_maps.token_rows(shown),
            f"**How to read it.** {shown.reading}{POINT_KEY}")


def build(engine: Engine, main: MainInputs, serving: Serving, tab: gr.Tab, shown: gr.State) -> None:
    """Lay out the view inside ``tab``; it draws from the main tab's last comparison while it is in view (``shown``,
    the page's tab in view) and when it is selected, on the page's model (explanations are kept per model)."""
    menu = looks.source_menu()  # the explainer's map, then each registered method's
    labels = [METHOD_REGISTRY[name].label for _, name in menu if name != looks.EXPLAINER]
    said = ", ".join(labels[:-1]) + f" or {labels[-1]}" if len(labels) > 1 else "".join(labels) or "the methods"
    gr.Markdown(INTRO.format(methods=said))
    note = gr.Markdown(elem_id="looks-note")
    with gr.Row():
        explainer = gr.Dropdown([], label="Explainer (those that apply to this model's image tower)",
                                elem_id="looks-explainer")
        segment = gr.Dropdown([], label="Segment", elem_id="looks-segment")
    source = gr.Radio(menu, value=looks.EXPLAINER, label="Map from", elem_id="looks-source")
    with gr.Row(elem_id="looks-maps"):  # side by side; one above the other where the screen is narrower than both
        maps = [gr.Plot(label=f"Where the model looks, caption {k}", elem_id=f"looks-map-{k.lower()}",
                        min_width=MAP_MIN_WIDTH) for k in "AB"]
    tokens = gr.HTML(elem_id="looks-tokens")
    reading = gr.Markdown(elem_id="looks-reading")

    def draw_looks(path: str | None, caption_a: str, caption_b: str, choice: str, result: tuple | None,
                   explainer: str | None, segment: Any, source: str):
        return draw(engine, path, caption_a, caption_b, choice, result, explainer, segment, source)

    inputs = [main.upload, main.caption_a, main.caption_b, main.choice, main.result, explainer, segment, source]
    outputs = [note, explainer, segment, *maps, tokens, reading]
    draw_while_seen(tab, shown, main.result, [(draw_looks, inputs, outputs)], serving.heavy)
    for control in (explainer, segment, source):  # input, not change: the menus this draw sets do not draw again
        control.input(draw_looks, inputs, outputs, trigger_mode="always_last", **serving.heavy)
    interactions_panel.build(engine, main, serving, MAP_MIN_WIDTH)
    heads_panel.build(engine, main, serving, MAP_MIN_WIDTH)
