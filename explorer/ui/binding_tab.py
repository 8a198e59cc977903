"""Binding geometry of the loaded model: MDS of objects vs their additive reconstructions, tables, edits."""

from __future__ import annotations

import gradio as gr
import pandas as pd

from explorer import binding, viz, world
from explorer.engine import Engine

N_COLORS, N_SHAPES = 8, 3  # the 24-object grid of seed 002


def build(engine: Engine) -> None:
    """Lay out the binding tab inside the current ``gr.Tab``."""
    pairs, scenes, captions = binding.world_scenes(N_COLORS, N_SHAPES)
    colors = list(world.COLORS)[:N_COLORS]
    tables_state = gr.State(None)

    def analyse(progress=gr.Progress()):
        progress(0, desc="encoding the 276 two-object scenes...")
        tables = binding.world_tables(engine.encoder, N_COLORS, N_SHAPES)
        rows = []
        for i, (kind, table) in enumerate(tables.items()):
            progress((i + 1, len(tables) + 1), desc=f"analysing the {kind} embeddings...")
            r2 = binding.additive_r2(table)
            probes = binding.probe_accuracy(table)
            rows.append({"embeddings": kind, "R2 scene ~ objects": round(r2["objects"], 1),
                         "R2 object ~ colour + shape": round(r2["concepts"], 1),
                         "edit top-1": round(binding.edit_top1(table), 1),
                         "probe: concepts": round(probes["concepts"], 1), "probe: objects": round(probes["objects"], 1)})
        observed, recon = binding.mds_points(tables["image"])
        labels = [f"{colors[c]} {world.SHAPES[s]}" for c, s in tables["image"].objects]
        note = f"Model: **{engine.encoder.label}**. Figures in percent, on all {len(pairs)} two-object scenes."
        return tables, pd.DataFrame(rows), viz.binding_mds_figure(observed, recon, labels), note

    def object_names(scene: int) -> list[str]:
        return [f"{colors[c]} {world.SHAPES[s]}" for c, s in pairs[int(scene)]]

    def do_edit(tables, scene: int, which: str, new_color: str):
        if tables is None:
            return None, None, "Run the analysis first."
        names = object_names(scene)
        which_i = names.index(which) if which in names else 0
        result = binding.edit(tables["image"], scene, which_i, colors.index(new_color))
        target = "none (that object is already in the scene)" if result.target is None else captions[result.target]
        verdict = "right" if result.correct else "wrong"
        text = (f"Edited: *{captions[scene]}*, the {names[which_i]} made {new_color}.  \nShould become: *{target}*.  \n"
                f"Retrieved: *{captions[result.retrieved]}* ({verdict}).")
        return scenes[scene].render(256), scenes[result.retrieved].render(256), text

    run = gr.Button("Analyse the loaded model", elem_id="binding-run")
    note = gr.Markdown()
    table = gr.Dataframe(label="Additive structure and probes", interactive=False, elem_id="binding-table")
    mds = gr.Plot(label="3D MDS", elem_id="binding-mds")
    with gr.Row():
        scene = gr.Dropdown([(c, i) for i, c in enumerate(captions)], value=0, label="Scene")
        which = gr.Radio(object_names(0), value=object_names(0)[0], label="Object to recolour")
        new_color = gr.Dropdown(colors, value=colors[1], label="New colour")
        edit_btn = gr.Button("Edit in embedding space", elem_id="binding-edit")
    with gr.Row():
        before = gr.Image(label="Scene edited", interactive=False)
        after = gr.Image(label="Scene retrieved", interactive=False)
    verdict = gr.Markdown(elem_id="binding-verdict")
    run.click(analyse, None, [tables_state, table, mds, note], api_name="binding")
    scene.change(lambda i: gr.update(choices=object_names(i), value=object_names(i)[0]), scene, which)
    edit_btn.click(do_edit, [tables_state, scene, which, new_color], [before, after, verdict], api_name="binding_edit")
