"""The maps tab shows the recorded binding reading of the interactions, per split and kind."""

import json

import gradio as gr

from explorer.engine import Engine
from explorer.explain.interaction_record import NONE, RECORDS


def test_the_maps_tab_shows_the_recorded_binding_reading(embedded):
    from explorer.ui.app import build_app

    tables = {b.elem_id: b for b in build_app(Engine(embedded)).blocks.values() if isinstance(b, gr.Dataframe)}
    table = tables["interactions-recorded"]
    assert table.visible and table.value["headers"][:3] == ["split", "kind", "right object (world-clip)"]
    rows = {(row[0], row[1]): row for row in table.value["data"]}
    records = [json.loads(path.read_text())["results"] for path in sorted(RECORDS.glob("interaction-binding-*.json"))]
    shown = {(split, kind) for record in records for split, kinds in record["model"].items() for kind in kinds}
    assert set(rows) == shown and {split for split, _ in shown} == {"id", "heldout", "shift", "style"}
    for record in records:
        for split, kinds in record["model"].items():
            for kind, figures in kinds.items():
                right, colour = figures["right_object"], record["null"][split][kind].get("colour_wins")
                assert rows[split, kind][2].startswith(f"{right['percent']:.1f}% ({right['ci'][0]:.1f} to ")
                assert rows[split, kind][5].startswith(f"{colour['percent']:.1f}% " if colour else NONE)
                assert rows[split, kind][6].startswith(f"{right['spans']} / ")
