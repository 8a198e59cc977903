"""The maps tab's interactions panel: pick a word or span of caption A or B and see its interaction map on the
picture, A and B side by side on one scale; pick a region and see each word's share of it
(``explorer/explain/interaction_view.py``)."""

from __future__ import annotations

import gradio as gr

from explorer.engine import Engine
from explorer.explain.interaction_record import HEADERS, WHERE, recorded_rows
from explorer.explain.interaction_view import REGIONS, interaction_view, word_menu
from explorer.explain.interactions import applies
from explorer.figures import viz_maps
from explorer.images.inputs import clean_caption_pair, read_image_kept
from explorer.ui.analysed import seen_state
from explorer.ui.guard import guarded, plain
from explorer.ui.main_tab import MainInputs
from explorer.ui.serving import Serving

TITLE = "Which object each word binds to (interactions)"
INTRO = ("Pick a word or two neighbouring words of caption A or B: beside the picture, where they and the picture "
         "interact in the cosine (second-order, exCLIP), in A and in B on one scale; pick a region to see each word's "
         "share of it. Computing both captions' interactions takes seconds; a new word or region is then immediate.")
WAITING = "Give an image and two captions on the first tab, then pick a word."
RECORDED = ("**The binding reading on the world's swaps** (recorded, `python -m explorer interactions`): per split "
            "and kind, the share of colour-shape spans naming an object the picture holds (the true caption's; in "
            "size and relation swaps both captions') whose interaction lies most on that object, and the share of "
            "the swapped caption's spans (attribute and object swaps) that follow their colour's object rather than "
            "their shape's; each a percentage of spans with its 95% percentile-bootstrap interval over items and "
            "its reading against chance, beside the same architecture with random weights (no binding, chance 50%).")


@guarded(lambda message: (message, gr.update(), None, None, ""))
def draw(engine: Engine, path: str | None, caption_a: str, caption_b: str, choice: str, result: tuple | None,
         words: str | None, region: str):
    """The note, the word menu, A's and B's interaction maps and the words shaded by their share of the region,
    worked out on the view the page's comparison ``result`` read (its cosines are the table's)."""
    if not path:
        return WAITING, gr.update(choices=[], value=None), None, None, ""
    captions = clean_caption_pair(caption_a, caption_b)
    menu = word_menu(captions)
    loaded = engine.model(choice)
    if not applies(loaded.encoder.model):
        return (f"Interactions need transformer towers: {plain(loaded.label)}'s are not.",
                gr.update(choices=menu, value=None), None, None, "")
    if words not in menu:
        return "Pick a word or span.", gr.update(choices=menu, value=None), None, None, ""
    image, _ = read_image_kept(path)
    seen = seen_state(result, image, captions, loaded.label)
    shown = interaction_view(loaded.encoder, seen, captions, words, region)
    note = "  \n".join([f"Model: **{plain(loaded.label)}**; words: **{plain(words)}**; region: {region}.",
                        *(f"**{plain(n)}**" for n in shown.notes), shown.reading])
    rows = "".join(f"<div><b>{k}</b>: {viz_maps.token_row(p.tokens, p.shares)}</div>"
                   for k, p in zip("AB", shown.panels))
    key = f"<div><small>Shade: each word's share of the {region}'s interaction, darkest for the largest.</small></div>"
    return (note, gr.update(choices=menu, value=words), *viz_maps.maps_figures(image, shown),
            f'<div class="token-shares">{rows}{key}</div>')


def build(engine: Engine, main: MainInputs, serving: Serving, min_width: int) -> None:
    """Lay out the panel under the tab's maps (each map at least ``min_width`` wide); it draws when a word or region
    is picked."""
    with gr.Accordion(TITLE, open=True, elem_id="interactions"):
        gr.Markdown(INTRO)
        with gr.Row():
            words = gr.Dropdown([], label="Word or span of caption A or B", elem_id="interactions-words")
            region = gr.Radio(list(REGIONS), value="whole picture", label="Region: each word's share of it",
                              elem_id="interactions-region")
        note = gr.Markdown(elem_id="interactions-note")
        with gr.Row(elem_id="interactions-maps"):
            maps = [gr.Plot(label=f"Interactions, caption {k}", elem_id=f"interactions-map-{k.lower()}",
                            min_width=min_width) for k in "AB"]
        shares = gr.HTML(elem_id="interactions-shares")
        rows = recorded_rows()
        gr.Markdown(RECORDED if rows else f"{RECORDED}  \nNo record here: the repository's `{WHERE}` holds it.")
        gr.Dataframe(rows, headers=HEADERS, interactive=False, visible=bool(rows), elem_id="interactions-recorded",
                     wrap=True, elem_classes=["wide-table"])  # each cell whole: its figure, interval and reading

    def draw_panel(path, caption_a, caption_b, choice, result, chosen, where):
        return draw(engine, path, caption_a, caption_b, choice, result, chosen, where)

    inputs = [main.upload, main.caption_a, main.caption_b, main.choice, main.result, words, region]
    outputs = [note, words, *maps, shares]
    main.result.change(draw_panel, inputs, outputs, **serving.heavy)  # a new comparison: the menu of its words
    for control in (words, region):
        control.input(draw_panel, inputs, outputs, trigger_mode="always_last", **serving.heavy)
