"""Both sides of the swap on the page: captions proposed from the picture, image B made for caption B, and the full
2 x 2 (Winoground's text, image and group scores) for every method, both pictures side by side."""

from __future__ import annotations

import tempfile
from pathlib import Path

import gradio as gr
import numpy as np
import pandas as pd
from PIL import Image

from explorer.core import image_state
from explorer.engine import Analysis, Engine, swap_report
from explorer.engine.propose import Proposal, namer, propose
from explorer.engine.swap import SwapResult, make_image_b
from explorer.eval.accuracy import SWAP_SCORES
from explorer.figures import two_by_two
from explorer.figures.two_by_two import Grid
from explorer.images.inputs import InputError, read_image_kept
from explorer.methods import REGISTRY
from explorer.ui import pair_panel, sessions
from explorer.ui.guard import guarded, plain, warn
from explorer.ui.main_tab import MainInputs, method_notices, notices, shows_inputs
from explorer.ui.own_pixels import own_box, scale
from explorer.ui.serving import Serving

TWO_BY_TWO_COLUMNS = ["method", *SWAP_SCORES, "prefers", "why"]
TWO_BY_TWO_WIDTHS = ["17%", "14%", "14%", "14%", "14%", "27%"]  # every column seen on a phone, the reason wrapped
LEGEND = ("**Reading the 2 x 2.** Image A is your picture, image B the one made for caption B (for a VisMin item, "
          "its two pictures, each with its own caption). *text*: on each "
          "picture its own caption scores higher than the other caption. *image*: each caption scores higher on its "
          "own picture than on the other. *group*: both (chance: 1 in 6). *prefers*: the caption the method scores "
          "higher on image A, as in the table above; *why*: what the verdicts rest on. " + two_by_two.LEGEND +
          " On a phone the grids alone show the 2 x 2: each says its method's verdicts and why.")
MARK = {True: "\u2713 yes", False: "\u2717 no", None: "n/a"}


def proposal_text(found: Proposal, factor: float = 1.0) -> str:
    """What the page saw and proposes, one object a line (its box times ``factor``: in the picture's own pixels),
    with the notes as warnings."""
    seen = [f"{n}. **{o.phrase}** ({o.confidence:.0%} sure) at {own_box(o.box, factor)}"
            for n, o in enumerate(found.objects, 1)]
    lines = [f"Seen by **{plain(found.model)}**:", *seen] if seen else []
    if found.caption_a:
        lines.append("")  # the proposal apart from the list above it
        lines.append(f"Proposed: A *{plain(found.caption_a)}*" + (f", B *{plain(found.caption_b)}*"
                                                                   if found.caption_b else ""))
    return "\n".join(lines) + notices(found.notes)


def grids(result: SwapResult) -> list[Grid]:
    """Each method's four scores (captions A and B on images A and B), from the analyses the 2 x 2 was made of."""
    a, b = result.analysis_a, result.analysis_b
    notes = {side: method_notices(analysis) for side, analysis in (("A", a), ("B", b))}
    return [Grid(REGISTRY[name].label, np.array([[a.scores[name][0].value, b.scores[name][0].value],
                                                 [a.scores[name][1].value, b.scores[name][1].value]]),
                 name not in a.untrained,
                 tuple(f"on image {side}: {said}" for side in "AB" for said in notes[side].get(name, ())))
            for name in a.scores]


def two_by_two_table(shown: list[Grid]) -> pd.DataFrame:
    """The 2 x 2's verdicts, one row per method, with the caption it prefers on image A and why."""
    rows = []
    for grid in shown:
        found = grid.outcome()
        verdicts = (found.text, bool(found.image), found.correct) if grid.trained else (None,) * 3
        rows.append([grid.label, *(MARK[v] for v in verdicts), grid.prefers() if grid.trained else "n/a",
                     grid.reason()])
    return pd.DataFrame(rows, columns=TWO_BY_TWO_COLUMNS)


def both_sides(engine: Engine, image: Image.Image, a: str, b: str, choice: str, view: str, shown: Analysis | None,
               progress) -> SwapResult:
    """Image B made from ``image`` and both pictures scored through the main page's path (its image state, view and
    model); ``shown``, the main page's analysis of these very inputs where it has one, is image A's side as it is,
    so that the page shows one set of numbers."""
    image_b, changed = make_image_b(engine, image, a, b, choice)
    side_a = shown or engine.analyze(image_state.of(image), a, b, progress, choice=choice, view=view)
    side_b = engine.analyze(image_state.of(image_b), a, b, progress, choice=choice, view=view)
    return SwapResult(image, image_b, side_a, side_b, changed)


def drawn(result: SwapResult, said: str) -> tuple:
    """The 2 x 2 of ``result`` as the panel shows it: ``said`` with image B's notices, both pictures, the verdicts,
    every method's grid, and the files to take away."""
    files = [str(p) for p in swap_report.write(result, Path(tempfile.mkdtemp(dir=sessions.folder("reports"))))]
    shown = grids(result)
    return (said + notices(result.analysis_b.notices), result.image_a, result.image_b, two_by_two_table(shown),
            two_by_two.grids_html(shown), files)


def build(engine: Engine, serving: Serving, main: MainInputs) -> gr.State:
    """The proposal and the 2 x 2 of the main page's inputs, inside the current layout block; returns the state of the
    2 x 2 shown (its ``SwapResult``), None while none is."""
    upload, caption_a, caption_b, choice = main.upload, main.caption_a, main.caption_b, main.choice

    @guarded(lambda message: (gr.update(), gr.update(), message, None, None))
    def propose_captions(path: str | None, typed_a: str, typed_b: str, choice: str):
        """The proposal shown, and the picture and model it was made of; the captions filled only where both boxes are
        empty (nothing typed is written over)."""
        if not path:
            raise InputError("Draw on the pad or upload an image first.")
        encoder, substitute = namer(engine, choice)
        image = read_image_kept(path)[0]
        found = propose(encoder, image, substitute)
        said, made = proposal_text(found, scale(path, image)), (path, choice)
        if not found.caption_a:
            return gr.update(), gr.update(), said, found, made
        if (typed_a or "").strip() or (typed_b or "").strip():
            return gr.update(), gr.update(), said + "\n\nYour captions are kept: press *Use the proposal* to put it " \
                                                   "in the boxes.", found, made
        return found.caption_a, found.caption_b or gr.update(), said, found, made

    def use_proposal(found: Proposal | None):
        if found is None or not found.caption_a:
            return gr.update(), gr.update()
        return found.caption_a, found.caption_b or gr.update()

    @guarded(lambda message: (message, None, None, None, "", None, pair_panel.SHOWN, None),
             serving.time_limit_s, " with a smaller image")
    def make_b(path: str | None, a: str, b: str, choice: str, last: tuple | None, view: str = "whole",
               progress=gr.Progress()):
        """Image B made for caption B, and the 2 x 2; where B cannot be made, why, and the one-image view kept."""
        if not path:
            raise InputError("Draw on the pad or upload an image first.")
        model = engine.model(choice).label
        same = last is not None and last[1].view == view and shows_inputs(last, path, a, b, model)
        try:
            result = both_sides(engine, read_image_kept(path)[0], a, b, choice, view, last[1] if same else None,
                                progress)
        except ValueError as exc:
            return (warn(f"{exc} The one-image comparison above still holds."), None, None, None, "", None,
                    (path, a, b, choice), None)  # why, kept while the inputs stay those it was said of
        said = f"Image B: {'; '.join(result.changed)}. Scored by **{plain(result.analysis_a.model)}**."
        return (*drawn(result, said), (path, a, b, choice), result)

    def clear_proposal(path: str | None, choice: str, made: tuple | None):
        """The proposal (what the model saw, and the captions it proposes) cleared once the picture or the model
        differ from those it was made of (``made``); its captions, once in the boxes, are the user's."""
        if made is not None and made == (path, choice):
            return (gr.update(),) * 3
        return "", None, None

    def clear_moved_on(path: str | None, a: str, b: str, choice: str, made: tuple | None):
        """The 2 x 2 cleared once the inputs or the model differ from those it was made with. A change that sets the
        same values keeps it, and so does one handled while nothing is shown (``made`` None): a 2 x 2 being made as
        the change arrives (the proposal filling the captions just before "Make image B") would be cleared as it
        lands; a change that comes while one is made stops it instead (``cancels``)."""
        if made is None or made == (path, a, b, choice):
            return (gr.update(),) * 8
        return "", None, None, None, "", None, None, None

    with gr.Row():
        propose_btn = gr.Button("Propose captions from the picture", elem_id="propose")
        use_btn = gr.Button("Use the proposal", size="sm", elem_id="use-proposal")
        make_btn = gr.Button("Make image B and score both sides", variant="primary", elem_id="make-b")
    picked = pair_panel.picker(serving.data)
    proposal = gr.Markdown(elem_id="proposal")
    found = gr.State(None)
    swap_note = gr.Markdown(elem_id="swap-note")
    with gr.Row():
        image_a = gr.Image(label="Image A (caption A)", type="pil", interactive=False, height=220, elem_id="swap-a")
        image_b = gr.Image(label="Image B (caption B)", type="pil", interactive=False, height=220,
                           elem_id="swap-b")
    table = gr.Dataframe(headers=TWO_BY_TWO_COLUMNS, label="Both sides of the swap", interactive=False, wrap=True,
                         column_widths=TWO_BY_TWO_WIDTHS, elem_id="two-by-two")
    cosines = gr.HTML(elem_id="two-by-two-scores")  # each method's four scores, marked
    gr.Markdown(LEGEND, elem_id="two-by-two-legend")
    files = gr.File(label="Both sides, to download: HTML that opens offline, and JSON with both pictures",
                    file_count="multiple", interactive=False, height=140, elem_id="swap-files")
    proposed = gr.State(None)  # the picture (its path) and the model the proposal shown was made of
    propose_btn.click(propose_captions, [upload, caption_a, caption_b, choice],
                      [caption_a, caption_b, proposal, found, proposed], api_name="propose", **serving.heavy)
    for changed in (upload, choice):  # nothing said of a picture outlives it
        changed.change(clear_proposal, [upload, choice, proposed], [proposal, found, proposed], api_name=False,
                       **serving.light)
    use_btn.click(use_proposal, found, [caption_a, caption_b], api_name=False, **serving.light)
    made = gr.State(None)  # the inputs (image path, A, B) and the model the 2 x 2 shown was made with
    result = gr.State(None)  # the 2 x 2 shown, as made
    shown = [swap_note, image_a, image_b, table, cosines, files, made, result]
    picked.button.click(lambda: ("", None, None), None, [proposal, found, proposed], api_name=False,
                        **serving.light)  # a VisMin item scored: the panel shows its pictures, not the proposal's
    making = [pair_panel.wire(engine, serving, main, picked, shown, drawn),
              make_btn.click(make_b, [upload, caption_a, caption_b, choice, main.result, main.view], shown,
                             api_name="make_b", **serving.heavy)]
    for changed in (upload, caption_a, caption_b, choice):  # a 2 x 2 is of the inputs and model it was made with
        changed.change(clear_moved_on, [upload, caption_a, caption_b, choice, made], shown, api_name=False,
                       cancels=making, **serving.light)
    return result
