"""The main page: an image, caption A and B, the session's model, scores, and one method's pictures under them."""

from __future__ import annotations

import dataclasses
import html
import logging
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import gradio as gr
import pandas as pd
from PIL import Image

from explorer.core import settings
from explorer.drawing.display import model_view, upload_place
from explorer.engine import TABLE_COLUMNS, UNTRAINED_MARK, Analysis, Engine, report
from explorer.images.fit import VIEWS
from explorer.images.inputs import InputError, clean_caption, clean_caption_pair, read_image_kept
from explorer.images.model_input import model_input
from explorer.language import text
from explorer.methods import REGISTRY, main_method
from explorer.ui import model_menu, sessions
from explorer.ui.guard import guarded, plain, warn
from explorer.ui.own_pixels import sizes_note
from explorer.ui.quick_webp import quick_webp
from explorer.ui.serving import Serving
from explorer.world.examples import examples

log = logging.getLogger(__name__)

COLUMNS_LEGEND = (
    "*prefers*: the caption the method scores higher; the right caption is the one that describes the image. "
    "*A*, *B*: each caption's score; *A - B*: their difference. "
    f"*{UNTRAINED_MARK.strip()}*: no trained weights for this model, so the method runs on random weights and its "
    "preference means nothing (n/a)."
)


def legend(methods: Sequence[str]) -> str:
    """The score table's legend: each of ``methods`` as it describes itself in the registry, then the columns."""
    said = [f"*{i.label}*: {i.legend} ({i.scale}){'; ' + i.caveat if i.caveat else ''}."
            for i in (REGISTRY[name].info for name in methods)]
    return " ".join(["**Reading the table.**", *said, COLUMNS_LEGEND])


@dataclass(frozen=True)
class MainInputs:
    """The main page's inputs that other tabs fill or read, and its last result."""

    upload: gr.File
    caption_a: gr.Textbox
    caption_b: gr.Textbox
    choice: gr.State  # this session's model: a menu entry
    result: gr.State  # (image, Analysis) of the last comparison; the method tabs draw from it
    following: gr.State  # whether the page has compared: from then on its results follow its inputs
    model: gr.Dropdown  # the model menu, showing ``choice``
    device: gr.Markdown  # which model the page uses, and where
    link: gr.Markdown  # the link to the comparison shown, or why it has none
    view: gr.Radio  # what every method reads of the image (``explorer.images.fit.VIEWS``)


def device_line(engine: Engine, choice: str) -> str:
    """Which model this page uses, and where it runs."""
    loaded = engine.model(choice)
    return f"Model: **{plain(loaded.label)}** on **{loaded.device}** (this page only: other users pick their own)"


def shown_scores(table: pd.DataFrame):
    """A score table as every table of the page shows scores: 4 places, 0.8200 written out (not 0.82)."""
    return table.style.format(precision=4)


SCORE_WIDTHS = ["23%", "23%", "18%", "18%", "18%"]  # TABLE_COLUMNS' shares of the table: all five seen on a phone
NOTICE = '<div class="notice" role="alert"><strong>\u26a0 Note:</strong> {}</div>'


def notices(said: Sequence[str]) -> str:
    """Each notice as a warning box of its own (the page's CSS styles ``.notice``); the text escaped as HTML, where
    markdown is not read."""
    return "".join(f"\n\n{NOTICE.format(html.escape(str(n), quote=False))}" for n in said)


def method_notices(result: Analysis) -> dict[str, tuple[str, ...]]:
    """What the analysis says of each method's evidence where it is weak or off the objects (its match on empty
    background, a subset that is background, attention off the shapes): the engine's cautions
    (``Analysis.cautions_of``), method name -> sentences, for each method that has any."""
    said = {name: result.cautions_of(name) for name in result.scores}
    return {name: notes for name, notes in said.items() if notes}


def verdict_notices(result: Analysis) -> tuple[str, ...]:
    """Each method's evidence notices, each said beside the method's verdict ("SGI (prefers A): ...")."""
    rows = {r["method"]: r for r in result.rows()}
    return tuple(f"{rows[name]['label']} (prefers {rows[name]['prefers'] or 'n/a'}): {said}"
                 for name, notes in method_notices(result).items() if name in rows for said in notes)


def _done(result: Analysis) -> str:
    return f"Done: scored by **{plain(result.model)}** on {result.device}." + notices(result.notices)


IMAGE_HINT = ", or with a smaller image"
CLEARED = (gr.update(), pd.DataFrame(columns=TABLE_COLUMNS), None, None, None, None)  # all but the image shown
EMPTY = (None, *CLEARED[1:])  # the image shown too: a failed analysis shows nothing of it


def kept_outputs(last: tuple | None, image: Image.Image, result: Analysis) -> tuple[bool, bool, bool]:
    """Whether the page's image, overlay A and overlay B (``main_method``'s) already show what ``result`` would draw,
    ``last`` being the comparison shown before it (image, analysis): a caption edit sends neither the image nor the
    other caption's overlay again (each is an image encoded for the browser, costly for a photo)."""
    if last is None or last[0] is not image or last[1].model != result.model or last[1].view != result.view:
        return False, False, False
    before, drawn = last[1], main_method(list(result.scores))
    same = drawn is not None and main_method(list(before.scores)) == drawn
    return True, *(before.captions[i] == result.captions[i] and same for i in (0, 1))


def picture_labels(methods: Sequence[str]) -> tuple[str, str, str]:
    """The labels of the pictures under the table: A's, B's and both captions', as ``main_method`` names them."""
    name = main_method(methods)
    if name is None:
        return "", "", ""
    shows = REGISTRY[name].info.main
    return shows.overlay_label.format("A"), shows.overlay_label.format("B"), shows.joint_label


def shows_inputs(last: tuple | None, path: str | None, caption_a: str, caption_b: str, model: str | None) -> bool:
    """Whether ``last``, the comparison the page keeps (image, analysis), was computed from the page's inputs now:
    the image at ``path``, both captions, and the model labelled ``model`` (None: not loaded). Right after an edit it
    is not yet (the page is scoring it again), nor after a change that could not be compared."""
    if last is None or not path or model is None or last[1].model != model:
        return False
    try:
        captions = clean_caption_pair(caption_a, caption_b)
        image = read_image_kept(path)[0]
    except InputError:
        return False
    same = image is last[0] or (image.size == last[0].size and image.tobytes() == last[0].tobytes())
    return same and captions == last[1].captions


def build(engine: Engine, serving: Serving) -> MainInputs:
    """Lay out the main tab inside the current ``gr.Tab``; returns the inputs other tabs fill."""
    exs = examples()

    @guarded(lambda message: (None, message))
    def preview(path: str | None):
        if not path:
            return None, ""
        image, said = read_image_kept(path)
        return image, notices(said).strip()

    @guarded(lambda message: (None, ""))
    def model_sees(path: str | None, choice: str, view: str):
        """What the page's model reads of the image under ``view``: the part cut greyed, the padding in its colour,
        and a sentence of what was cut or padded; nothing while no image is uploaded or the model is not loaded."""
        if not path or choice not in engine.pool.loaded():
            return None, ""
        image, _ = read_image_kept(path)
        seen = model_input(image, engine.model(choice).encoder.preprocessing, view)
        note = (sizes_note(path, image) + " " + seen.note[:1].upper() + seen.note[1:] + ".").strip()
        if seen.box[0] > 0 or seen.box[1] > 0 or seen.box[2] < image.width or seen.box[3] < image.height:
            note += " Greyed above: the part cut before the model reads the image."
        return model_view(image, seen.box, seen.fill), plain(note)

    @guarded(lambda message: (gr.update(), message))
    def swap(caption_a: str):
        proposal = text.propose_swap(clean_caption(caption_a, "A"))
        if proposal is None:  # one object ("a red square") has nothing inside it to exchange: no word salad made up
            return gr.update(), warn("No swap found in caption A: a swap exchanges the words of two objects ('a red "
                                     "square and a blue circle') or the two ends of a relation ('a dog on a sofa'), "
                                     "and caption A has no second object. Type caption B yourself, e.g. the same "
                                     "object in another colour ('a blue square').")
        return proposal.caption, plain(f"Swapped ({proposal.kind}): {proposal.note}.")

    async def load_model(choice: str, current: str, progress=gr.Progress()):
        """Load the picked model for this session; on failure the session keeps its model and the menu shows it."""
        @guarded(lambda message: (message, device_line(engine, current), current, current),
                 serving.time_limit_s, " when the server is less busy")
        def load(choice: str, progress):
            progress(0, desc=f"loading {choice}...")
            loaded = engine.model(choice)
            return f"Loaded {plain(loaded.label)} for this page.", device_line(engine, choice), choice, choice
        return await load(choice, progress)

    def compare(path: str | None, caption_a: str, caption_b: str, choice: str, view: str, last: tuple | None,
                progress):
        """Both captions scored on the image. ``last``, for a caption edit, is the comparison the page shows now: what
        it already shows is not sent again."""
        if not path:
            raise InputError("Upload an image or pick an example first.")
        progress(0, desc="reading the image...")
        image, said = read_image_kept(path)
        result = engine.analyze(image, caption_a, caption_b, progress, choice=choice, view=view)
        same_image, *same_overlay = kept_outputs(last, image, result)
        overlays, heat, name = [None, None], None, main_method(list(result.scores))
        if name is not None:
            drawn, scores = REGISTRY[name].info.main, result.scores[name]
            # drawn from the state of the view the methods read (the analysis holds it), on the picture's frame
            overlays = [gr.update() if same else quick_webp(drawn.overlay(result.state, s.evidence))
                        for same, s in zip(same_overlay, scores)]
            heat = drawn.joint({f"{k}: {s.caption}": s.evidence for k, s in zip("AB", scores)},
                               upload_place(result.state))  # the regions in the upload's own pixels
        # the image's notices first, then what each method's evidence is worth, beside its verdict
        result = dataclasses.replace(result, notices=(*said, *verdict_notices(result), *result.notices))
        table = shown_scores(result.table())
        shown = gr.update() if same_image else quick_webp(image)
        return _done(result), shown, table, overlays[0], overlays[1], heat, (image, result)

    @guarded(lambda message: (message, *EMPTY, gr.update()), serving.time_limit_s, IMAGE_HINT)
    def analyze(path: str | None, caption_a: str, caption_b: str, choice: str, view: str = "whole",
                progress=gr.Progress()):
        """The button (and the API): everything drawn and sent; from now on the page follows its inputs."""
        return *compare(path, caption_a, caption_b, choice, view, None, progress), True

    def follow(path: str | None, caption_a: str, caption_b: str, choice: str, last, following: bool,
               view: str = "whole", progress=gr.Progress()):
        """Any change of the image, a caption or the model once the page has compared (typed, deleted, cut, pasted,
        an example, a Browse item): scored again, or every result cleared while the inputs cannot be compared."""
        if not following:
            return (gr.update(),) * 7  # nothing compared yet: nothing shown that the change could contradict
        if not path:
            return ("The image was removed: the results are cleared. Upload one to compare again.", *CLEARED)
        for which, caption in (("A", caption_a), ("B", caption_b)):
            if not (caption or "").strip():
                return (f"Caption {which} is empty: the results are cleared until it is filled in.", *CLEARED)
        return compare(path, caption_a, caption_b, choice, view, last, progress)

    # an error clears the results too: none stays under inputs it was not computed from
    on_change = guarded(lambda message: (message, *CLEARED), serving.time_limit_s, IMAGE_HINT)(follow)

    @guarded(lambda message: (message, *CLEARED), serving.time_limit_s, IMAGE_HINT)
    def follow_model(path: str | None, caption_a: str, caption_b: str, choice: str, last, following: bool,
                     view: str = "whole", progress=gr.Progress()):
        """After a model load: the comparison shown scored again by the page's model, where that is another one."""
        if last is not None and last[1].model == engine.model(choice).label and last[1].view == view:
            return (gr.update(),) * 7  # the load failed (its message stays), or it picked the model shown
        return follow(path, caption_a, caption_b, choice, last, following, view, progress)

    @guarded(lambda message: (None, message))
    def take_away(path: str | None, caption_a: str, caption_b: str, choice: str, last: tuple | None):
        """The comparison shown as an HTML page and its numbers as JSON, to download, with a note beside them that
        says what they are: the file and the note come and go together (a new comparison clears both), and no file
        is made of a comparison the inputs have moved on from (pressed right after an edit, it is being scored)."""
        if last is None:
            return None, "Compare A and B first: the download is the comparison shown."
        model = engine.model(choice).label if choice in engine.pool.loaded() else None
        if not shows_inputs(last, path, caption_a, caption_b, model):
            return None, ("No download yet: the results shown are out of date (your last change is being scored, or "
                          "could not be). Press the button again once the scores show your inputs.")
        paths = report.write(*last, Path(tempfile.mkdtemp(dir=sessions.folder("reports"))))
        a, b = last[1].captions
        return [str(p) for p in paths], (f"Ready to download below: A *{plain(a)}* and B *{plain(b)}*, scored by "
                                         f"**{plain(last[1].model)}**.")

    with gr.Row():
        with gr.Column(scale=1):
            upload = gr.File(label="Image (PNG, JPEG, WebP, TIFF...)", type="filepath", elem_id="upload")
            shown = gr.Image(label="Image as read", type="pil", interactive=False, height=260, elem_id="image-read")
            sees = gr.Image(label="What the model sees", type="pil",
                            interactive=False, height=220, elem_id="model-sees")
            sees_note = gr.Markdown(elem_id="model-sees-note")
            model = gr.Dropdown(model_menu.labelled(engine.choices()), value=engine.default_choice, label="Model",
                                info=f"'{model_menu.SHIPPED}' and '{model_menu.CACHED}' load on this machine; "
                                     f"'{model_menu.HUB}' downloads its weights once, where the hub can be reached",
                                elem_id="model")
            view = gr.Radio(list(VIEWS), value=settings.current().view, label="What every method reads",
                            info="whole: the picture made square (padded with its background; a small drawing "
                                 "enlarged); raw: the picture as it is, centre-cropped by the model's preprocess",
                            elem_id="view")
            device = gr.Markdown(device_line(engine, engine.default_choice), elem_id="device")
        with gr.Column(scale=1):
            caption_a = gr.Textbox(label="Caption A", elem_id="caption-a")
            caption_b = gr.Textbox(label="Caption B (the scores follow your edits once compared)", elem_id="caption-b")
            with gr.Row():
                swap_btn = gr.Button("Swap for me", elem_id="swap")
                run_btn = gr.Button("Compare A and B", variant="primary", elem_id="run")
            status = gr.Markdown(elem_id="status")
            link = gr.Markdown(elem_id="share-link")
            table = gr.Dataframe(headers=TABLE_COLUMNS, label="Scores", interactive=False, elem_id="scores",
                                 column_widths=SCORE_WIDTHS, wrap=True)
            gr.Markdown(legend(engine.method_names), elem_id="legend")
            with gr.Row():
                report_btn = gr.Button("Download this analysis (HTML that opens offline, and JSON)",
                                       elem_id="report")
                report_files = gr.File(label="The analysis", file_count="multiple", interactive=False, height=110,
                                       elem_id="report-files")
            report_note = gr.Markdown(elem_id="report-note")  # what the files are, or why there are none
    if exs:
        gr.Examples([[str(e.path), e.caption_a, e.caption_b] for e in exs], inputs=[upload, caption_a, caption_b],
                    example_labels=[e.name for e in exs], label="Examples")
    label_a, label_b, label_joint = picture_labels(engine.method_names)
    with gr.Row():
        overlay_a = gr.Image(label=label_a, interactive=False, elem_id="overlay-a")
        overlay_b = gr.Image(label=label_b, interactive=False, elem_id="overlay-b")
    heatmap = gr.Plot(label=label_joint, elem_id="heatmap")
    choice = gr.State(engine.default_choice)
    result = gr.State(None)

    outputs = [status, shown, table, overlay_a, overlay_b, heatmap, result]
    swap_btn.click(swap, caption_a, [caption_b, status], api_name="swap", **serving.light)
    following = gr.State(False)  # whether this page has compared: from then on its results follow its inputs
    followed = [upload, caption_a, caption_b, choice, result, following, view]
    edit = dict(api_name=False, show_progress="hidden", **serving.heavy)
    upload.change(preview, upload, [shown, status], api_name="preview",
                  **serving.light).then(on_change, followed, outputs, **edit)
    for changed in (upload, choice, view):  # the picture follows the upload, the view, and the model's input size
        changed.change(model_sees, [upload, choice, view], [sees, sees_note], api_name=False, **serving.light)
    model.input(load_model, [model, choice], [status, device, model, choice], api_name="load_model",
                **serving.heavy).then(follow_model, followed, outputs, **edit)
    run_btn.click(analyze, [upload, caption_a, caption_b, choice, view], [*outputs, following], api_name="analyze",
                  **serving.heavy)
    # one event for both captions and the view (change, not input: deleting, cutting, pasting and set values count
    # too), so an edit's results never land after a later edit's: always_last runs them one at a time, the last kept
    gr.on([caption_a.change, caption_b.change, view.change], on_change, followed, outputs, trigger_mode="always_last",
          **edit)
    report_btn.click(take_away, [upload, caption_a, caption_b, choice, result], [report_files, report_note],
                     api_name="report", **serving.light)
    # a report is of the comparison it was made from: a new one clears the files and their note together
    result.change(lambda: (None, ""), None, [report_files, report_note], **serving.light)
    return MainInputs(upload, caption_a, caption_b, choice, result, following, model, device, link, view)
