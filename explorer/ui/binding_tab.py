"""Binding geometry of the loaded model: MDS of objects vs their additive reconstructions (each point drawn as its
object), its readings each beside its null, edits."""

from __future__ import annotations

import dataclasses

import gradio as gr
import pandas as pd

from explorer import world
from explorer.engine import Engine
from explorer.figures import viz
from explorer.images.inputs import InputError, whole_number
from explorer.readings import DRAWS, binding
from explorer.readings.binding_report import FAMILY, UNSTABLE, ModelReading, read_model
from explorer.readings.equal_area import picture
from explorer.readings.significance import SHOWS, SMALLEST, UNTESTED, binding_word, effect
from explorer.ui.guard import guarded, plain
from explorer.ui.serving import Serving

N_COLORS, N_SHAPES = 8, 3  # the 24-object grid of the binding paper
COLUMNS = {"r2.objects": "R2 scene ~ objects", "r2.concepts": "R2 object ~ colour + shape", "edit.top1": "edit top-1",
           "probe.concepts": "probe: concepts", "probe.objects": "probe: objects",  # binding.readings' names
           "mlp.heldout_objects": "slot MLP: retrieval", "product.heldout_objects": "product probe: retrieval",
           "additive.heldout_objects": "additive probe: retrieval", "swap.mlp.heldout_objects": "swaps: slot MLP",
           "swap.product.heldout_objects": "swaps: product probe",
           "swap.additive.heldout_objects": "swaps: additive probe"}  # the record's probe readings
CHANCE, VERDICT = "chance", "verdict"  # chance: the null's mean (its 95% range); verdict: a sentence, with p
COLUMNS_NOTE = (
    "**Readings** (percent). *R2 scene ~ objects*: how much of each scene's embedding the sum of its two objects' "
    "embeddings explains. *R2 object ~ colour + shape*: how much of each object's embedding its colour plus its "
    "shape explains (additive concepts). *edit top-1*: recolour one object in embedding space (e - colour-shape + "
    "new colour-shape) and retrieve: how often the nearest scene is the edited one. *probe: concepts / objects*: "
    "linear probes that read the colours and shapes, or the coloured objects, back from the embedding. "
    f"**Chance**: what an encoder that cannot bind scores on the same reading: the mean, and in brackets the 95% "
    f"range, over {DRAWS} copies of the scene table with the two scenes of each swap pair (the same colours and "
    "shapes, bound the other way, every object over the same pixels) exchanged at random; such an encoder cannot "
    "tell those copies from the real table. **Verdict**: whether the model's score says anything about binding. Its "
    "*p* is the share of copies that score at least as high as the model, (k + 1) / (copies + 1) (for the swaps "
    "told apart, the exact sign-flip test over the 84 swap pairs); its *adjusted p* is Holm's correction over every "
    "reading `python -m explorer binding` tests. Above chance, the verdict gives the **effect**, the score less its "
    f"chance, with its 95% interval: it shows binding only where that interval clears {SMALLEST:g} point, else the "
    "difference is real but negligible. For the shipped model the table is its record (`docs/results/"
    "binding-embedded.json`, every reading of the command, each verdict checked on two other drawings of the "
    "scenes, \"unstable\" where they differ), the same family, p and verdict as docs/binding.md. For another "
    f"model the tab runs the readings that need no probe, corrects them as {FAMILY} readings (those it does not run "
    "counted at p 1, so never bolder than the command) and marks each verdict unchecked: `python -m explorer "
    "binding` runs the probes, the swaps told apart and the check on other drawings."
)


def _digits(value: float, mean: float) -> int:
    """Decimals enough to show a value apart from its chance (1 to 3): 94.16 against 94.14, not 94.2 against 94.1."""
    return next((d for d in (1, 2) if f"{value:.{d}f}" != f"{mean:.{d}f}"), 3)


def _ps(entry: dict) -> str:
    null = entry["null"]
    return f"(p {null['p']:.2g}, adjusted {null['p_adjusted']:.2g} over {null['family']} readings)"


def verdict(entry: dict, checked: bool = True) -> str:
    """A reading's verdict as a sentence a teacher reads: what it says of binding, the effect where it is above
    chance, its p and adjusted p after it; ``checked``: whether the verdict was checked on other drawings."""
    null, value = entry["null"], entry["value"]
    if entry["reading"] == UNTESTED:
        return f"Cannot tell: {null['untested']}."
    if entry["reading"] == UNSTABLE:
        seeds = "; ".join(f"drawing {s}: {b['value']:.1f}, adjusted p {b['p_adjusted']:.2g}, {b['reading']}"
                          for s, b in entry["seeds"].items())
        return f"Unstable: other drawings of the scenes give other verdicts ({seeds}), so no verdict."
    d = _digits(value, null["mean"])
    chance, score = f"{null['mean']:.{d}f}", f"{value:.{d}f}"
    unchecked = "" if checked else " Unchecked on other drawings of the scenes."
    if entry["reading"] == "above chance":
        found = effect(entry)  # the record's, or from its value and null where it was written before effects
        shown = f"{found['value']:+.2f} points [{found['interval'][0]:.2f}, {found['interval'][1]:.2f}]"
        if binding_word(entry["reading"], found) == SHOWS:
            return (f"Shows binding: {score} against {chance} for an encoder that cannot bind, {shown} "
                    f"{_ps(entry)}.{unchecked}")
        return (f"Real but negligible: {score} against {chance} for an encoder that cannot bind, {shown}, not "
                f"clearly {SMALLEST:g} point or more {_ps(entry)}.{unchecked}")
    if entry["reading"] == "below chance":
        return (f"Says nothing about binding: an encoder that cannot bind scores {chance} here, even more than the "
                f"model's {score} {_ps(entry)}.{unchecked}")
    return (f"Says nothing about binding: an encoder that cannot bind scores {chance} here too, so {score} is no "
            f"sign of binding {_ps(entry)}.{unchecked}")


def _beside(entry: dict, checked: bool) -> dict:
    """A reading's row cells: its value, its null (``significance.against_draws`` or ``pair_test``) and the verdict,
    four cells in all, so that a phone's width shows the value beside its chance without scrolling; both with the
    decimals that tell them apart."""
    null = entry["null"]
    d = _digits(entry["value"], null["mean"])
    return {"value": round(entry["value"], d),
            CHANCE: f"{null['mean']:.{d}f} ({null['range'][0]:.{d}f} to {null['range'][1]:.{d}f})",
            VERDICT: verdict(entry, checked)}


def rows(found: ModelReading) -> list[dict]:
    """The table's rows: every reading the model's record holds, or the tab's own table readings, image then
    caption."""
    return [{"reading": f"{kind}: {column}", **_beside(r[key], found.record is not None)}
            for kind, r in found.readings.items() for key, column in COLUMNS.items() if key in r]


def build(engine: Engine, choice: gr.State, serving: Serving) -> gr.State:
    """Lay out the binding tab inside the current ``gr.Tab``; returns the state of its last reading (the model's label
    and its ``ModelReading``), None before a run."""
    pairs, scenes, captions = binding.world_scenes(N_COLORS, N_SHAPES)
    colors = list(world.COLORS)[:N_COLORS]
    reading = gr.State(None)

    @guarded(lambda message: (None, gr.update(value=None, visible=False), None, message), serving.time_limit_s)
    def analyze(model: str, progress=gr.Progress()):
        loaded = engine.model(model)
        found = read_model(loaded.encoder, N_COLORS, N_SHAPES,
                                        lambda done, total, what: progress((done, total), desc=f"{what}..."))
        source = (f"its record, `docs/results/{found.record}`" if found.record else
                  "this tab's run, the readings that need no probe, unchecked")
        note = (f"Model: **{plain(loaded.label)}**, read from {source}. Figures in percent, on all {len(pairs)} "
                "two-object scenes.")
        figure = viz.binding_mds_figure(found.observed, found.reconstructed, found.labels)
        return (loaded.label, found), gr.update(value=pd.DataFrame(rows(found)), visible=True), figure, note

    def object_names(scene: int) -> list[str]:
        return [f"{colors[c]} {world.SHAPES[s]}" for c, s in pairs[int(scene)]]

    @guarded(lambda message: (None, None, None, message))
    def do_edit(read: tuple | None, scene: int, which: str, new_color: str):
        if read is None:
            return None, None, None, "Run the analysis first."
        scene = whole_number(scene, "The scene", 0, len(pairs) - 1)
        if new_color not in colors:
            raise InputError(f"The new colour must be one of {', '.join(colors)}; got {new_color!r}.")
        names = object_names(scene)
        which_i = names.index(which) if which in names else 0
        result = binding.edit(read[1].tables["image"], scene, which_i, colors.index(new_color))
        original = scenes[scene]
        recoloured = dataclasses.replace(original.objects[which_i], color=new_color)
        edited = dataclasses.replace(original, objects=tuple(recoloured if i == which_i else o
                                                            for i, o in enumerate(original.objects)))
        target = "none (that object is already in the scene)" if result.target is None else captions[result.target]
        verdict = "right" if result.correct else "wrong"
        text = (f"Edited: *{captions[scene]}*, the {names[which_i]} made {new_color}.  \nShould become: *{target}*.  \n"
                f"Retrieved: *{captions[result.retrieved]}* ({verdict}).")
        return (picture(original.objects, 256), picture(edited.objects, 256),
                picture(scenes[result.retrieved].objects, 256), text)

    run = gr.Button("Analyze the loaded model", elem_id="binding-run")
    note = gr.Markdown()
    table = gr.Dataframe(label="Additive structure and probes, each beside its null", interactive=False, wrap=True,
                         column_widths=["29%", "19%", "28%", "24%"], elem_id="binding-table",
                         visible=False)  # no placeholder columns before a run
    gr.Markdown(COLUMNS_NOTE)
    mds = gr.Plot(label="Objects and their colour + shape sums (MDS)", elem_id="binding-mds")
    with gr.Row():
        scene = gr.Dropdown([(c, i) for i, c in enumerate(captions)], value=0, label="Scene")
        which = gr.Radio(object_names(0), value=object_names(0)[0], label="Object to recolour")
        new_color = gr.Dropdown(colors, value=colors[1], label="New colour")
        edit_btn = gr.Button("Edit in embedding space", elem_id="binding-edit")
    with gr.Row():
        before = gr.Image(label="The scene", interactive=False)
        edited = gr.Image(label="The scene as edited (what retrieval should find)", interactive=False)
        after = gr.Image(label="The scene retrieved from the edited embedding", interactive=False)
    verdict = gr.Markdown(elem_id="binding-verdict")
    run.click(analyze, choice, [reading, table, mds, note], api_name="binding", **serving.heavy)
    choice.change(lambda: (None, gr.update(value=None, visible=False), None, ""), None, [reading, table, mds, note],
                  api_name=False, **serving.light)  # another model: the reading shown was of the one before
    scene.change(lambda i: gr.update(choices=object_names(i), value=object_names(i)[0]), scene, which, **serving.light)
    edit_btn.click(do_edit, [reading, scene, which, new_color], [before, edited, after, verdict],
                   api_name="binding_edit", **serving.light)
    return reading
