"""Both sides of the swap on the page: captions proposed from the picture, image B made for caption B, and the full
2 x 2 (Winoground's text, image and group scores) for every method, both pictures side by side."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd
import gradio as gr

from explorer.engine import Engine, swap_report
from explorer.engine.propose import Proposal, namer, propose
from explorer.engine.swap import SwapResult, swap
from explorer.eval.accuracy import SWAP_SCORES
from explorer.images.inputs import InputError, read_image_kept
from explorer.ui.guard import guarded, plain, warn
from explorer.ui.main_tab import REPORT_DIR, MainInputs, notices
from explorer.ui.serving import Serving

TWO_BY_TWO_COLUMNS = ["method", *SWAP_SCORES, "prefers", "A", "B", "A - B"]
LEGEND = ("**Reading the 2 x 2.** Image A is your picture, image B the one made for caption B. *text*: on each "
          "picture its own caption scores higher than the other caption. *image*: each caption scores higher on its "
          "own picture than on the other. *group*: both (chance: 1 in 6). *A*, *B*, *A - B*: the scores on image A, "
          "as in the table above.")
MARK = {True: "\u2713 yes", False: "\u2717 no", None: "n/a"}


def proposal_text(found: Proposal) -> str:
    """What the page saw and proposes, one object a line, with the notes as warnings."""
    seen = [f"{n}. **{o.phrase}** ({o.confidence:.0%} sure) at {o.box}" for n, o in enumerate(found.objects, 1)]
    lines = [f"Seen by **{plain(found.model)}**:", *seen] if seen else []
    if found.caption_a:
        lines.append("")  # the proposal apart from the list above it
        lines.append(f"Proposed: A *{plain(found.caption_a)}*" + (f", B *{plain(found.caption_b)}*"
                                                                   if found.caption_b else ""))
    return "\n".join(lines) + notices(found.notes)


def two_by_two_table(result: SwapResult) -> pd.DataFrame:
    """The 2 x 2's verdicts beside the page's scores on image A, one row per method."""
    table = result.table()
    for score in SWAP_SCORES:
        table[score] = [MARK[v if v is None else bool(v)] for v in table[score]]
    return table[TWO_BY_TWO_COLUMNS]


def build(engine: Engine, serving: Serving, main: MainInputs) -> None:
    """The proposal and the 2 x 2 of the main page's inputs, inside the current layout block."""
    upload, caption_a, caption_b, choice = main.upload, main.caption_a, main.caption_b, main.choice

    @guarded(lambda message: (gr.update(), gr.update(), message, None))
    def propose_captions(path: str | None, typed_a: str, typed_b: str, choice: str):
        """The proposal shown; the captions filled only where both boxes are empty (nothing typed is written over)."""
        if not path:
            raise InputError("Draw on the pad or upload an image first.")
        encoder, substitute = namer(engine, choice)
        found = propose(encoder, read_image_kept(path)[0], substitute)
        said = proposal_text(found)
        if not found.caption_a:
            return gr.update(), gr.update(), said, found
        if (typed_a or "").strip() or (typed_b or "").strip():
            return gr.update(), gr.update(), said + "\n\nYour captions are kept: press *Use the proposal* to put it " \
                                                   "in the boxes.", found
        return found.caption_a, found.caption_b or gr.update(), said, found

    def use_proposal(found: Proposal | None):
        if found is None or not found.caption_a:
            return gr.update(), gr.update()
        return found.caption_a, found.caption_b or gr.update()

    @guarded(lambda message: (message, None, None, None, None, None), serving.time_limit_s, " with a smaller image")
    def make_b(path: str | None, a: str, b: str, choice: str, progress=gr.Progress()):
        """Image B made for caption B, and the 2 x 2; where B cannot be made, why, and the one-image view kept."""
        if not path:
            raise InputError("Draw on the pad or upload an image first.")
        try:
            result = swap(engine, read_image_kept(path)[0], a, b, choice, progress)
        except ValueError as exc:
            return warn(f"{exc} The one-image comparison above still holds."), None, None, None, None, None
        said = f"Image B: {'; '.join(result.changed)}. Scored by **{plain(result.analysis_a.model)}**."
        files = [str(p) for p in swap_report.write(result, Path(tempfile.mkdtemp(dir=REPORT_DIR)))]
        return (said + notices(result.analysis_b.notices), result.image_a, result.image_b, two_by_two_table(result),
                files, (path, a, b))

    def clear_moved_on(path: str | None, a: str, b: str, made: tuple | None):
        """The 2 x 2 cleared once the inputs differ from those it was made from (a change that arrives late, or
        sets the same values, keeps it)."""
        if made is not None and made == (path, a, b):
            return (gr.update(),) * 6
        return "", None, None, None, None, None

    with gr.Row():
        propose_btn = gr.Button("Propose captions from the picture", elem_id="propose")
        use_btn = gr.Button("Use the proposal", size="sm", elem_id="use-proposal")
        make_btn = gr.Button("Make image B and score both sides", variant="primary", elem_id="make-b")
    proposal = gr.Markdown(elem_id="proposal")
    found = gr.State(None)
    swap_note = gr.Markdown(elem_id="swap-note")
    with gr.Row():
        image_a = gr.Image(label="Image A (caption A)", type="pil", interactive=False, height=220, elem_id="swap-a")
        image_b = gr.Image(label="Image B, made for caption B", type="pil", interactive=False, height=220,
                           elem_id="swap-b")
    table = gr.Dataframe(headers=TWO_BY_TWO_COLUMNS, label="Both sides of the swap", interactive=False, wrap=True,
                         elem_id="two-by-two")
    gr.Markdown(LEGEND, elem_id="two-by-two-legend")
    files = gr.File(label="Both sides, to download: HTML that opens offline, and JSON with both pictures",
                    file_count="multiple", interactive=False, height=110, elem_id="swap-files")
    propose_btn.click(propose_captions, [upload, caption_a, caption_b, choice], [caption_a, caption_b, proposal, found],
                      api_name="propose", **serving.heavy)
    use_btn.click(use_proposal, found, [caption_a, caption_b], api_name=False, **serving.light)
    made = gr.State(None)  # the inputs (image path, A, B) the 2 x 2 shown was made from
    shown = [swap_note, image_a, image_b, table, files, made]
    make_btn.click(make_b, [upload, caption_a, caption_b, choice], shown, api_name="make_b", **serving.heavy)
    for changed in (upload, caption_a, caption_b):  # a 2 x 2 is of the inputs it was made from
        changed.change(clear_moved_on, [upload, caption_a, caption_b, made], shown, api_name=False, **serving.light)
