"""PowerCLIP's tab (gradio: it sits at the page's layer): the captions' phrase trees; a node's best region subset;
exact vs NLA values and times."""

from __future__ import annotations

import gradio as gr
import pandas as pd

from explorer.methods.powerclip import tree
from explorer.methods.powerclip.pictures import subset_overlay
from explorer.images.inputs import whole_number
from explorer.methods.powerclip.method import PowerCLIPEvidence
from explorer.ui.guard import guarded, plain
from explorer.ui.main_tab import MainInputs
from explorer.ui.quick_webp import quick_webp
from explorer.ui.serving import Serving
from explorer.ui.shown_tab import draw_while_seen

TITLE = "PowerCLIP"
NODE_COLUMNS = ["caption", "node", "phrase", "exact", "NLA", "exact - NLA", "best regions"]


def _nodes(evidence: PowerCLIPEvidence) -> list[tuple[str, int]]:
    return [(f"{n.label}: {n.text}", i) for i, n in enumerate(evidence.tree)]


def _table(analysis) -> tuple[pd.DataFrame, str]:
    rows, times = [], []
    for which, score in zip("AB", analysis.scores["powerclip"]):
        ev: PowerCLIPEvidence = score.evidence
        for node, al in zip(ev.tree, ev.alignments):
            rows.append({"caption": which, "node": node.label, "phrase": node.text, "exact": round(al.exact, 4),
                         "NLA": round(al.nla, 4), "exact - NLA": round(al.error, 5),
                         "best regions": ", ".join(f"r{i}" for i in al.best)})
        times.append(f"{which}: exact over {2 ** ev.exact_regions - 1} subsets of {ev.exact_regions} regions "
                     f"{1000 * ev.exact_seconds:.2f} ms, NLA {1000 * ev.nla_seconds:.2f} ms")
    return pd.DataFrame(rows, columns=NODE_COLUMNS), "  \n".join(times)


@guarded(lambda message: (message, None, gr.update(), gr.update()))
def show_alignments(result_value: tuple | None):
    """The note with scores and timings, the per-node table, and the nodes to pick from."""
    if result_value is None or "powerclip" not in result_value[1].scores:
        # one update each: gradio takes the value out of an update dict as it sends it, so a dict given for both
        # menus emptied node B's choices but left its value (0), which the next draw's input check then refused
        none = [gr.update(choices=[], value=None) for _ in "AB"]
        return "Run a comparison on the first tab: this tab shows its PowerCLIP evidence.", None, *none
    analysis = result_value[1]
    a, b = (s.evidence for s in analysis.scores["powerclip"])
    table, times = _table(analysis)
    pa, pb = (s.value for s in analysis.scores["powerclip"])
    note = (f"Model: **{plain(analysis.model)}**. PowerCLIP score A {pa:.4f}, B {pb:.4f} (A - B {pa - pb:+.4f}).  \n"
            f"{times}  \nRegions are numbered rN as on the pictures below; beside each picture, white: the node's "
            f"best subset, the one whose pooled patches have the highest cosine with the phrase, shown as the method "
            f"chose it, even where it lies on another object than the phrase names.")
    return note, table, gr.update(choices=_nodes(a), value=0), gr.update(choices=_nodes(b), value=0)


@guarded(lambda message: (None, None, None, None, message))
def draw_nodes(result_value: tuple | None, node_a: int | None, node_b: int | None):
    """Both trees with the chosen node marked, and each chosen node's best region subset on the image."""
    if result_value is None or "powerclip" not in result_value[1].scores:
        return None, None, None, None, ""
    image, analysis = result_value
    scale = tree.tree_range([score.evidence for score in analysis.scores["powerclip"]])  # A and B on one colour scale
    out = []
    for score, node in zip(analysis.scores["powerclip"], (node_a, node_b)):
        k = whole_number(node or 0, "The node", 0, len(score.evidence.tree) - 1)
        out.append(tree.tree_figure(score.evidence, score.caption, k, scale))
        out.append(quick_webp(subset_overlay(image, score.evidence, k)))
    return out[0], out[2], out[1], out[3], ""


def build(main: MainInputs, serving: Serving, tab: gr.Tab, shown: gr.State) -> None:
    """Lay out the PowerCLIP tab inside ``tab``; it draws from the main tab's last comparison while it is in view
    (``shown``, the page's tab in view), and when it is selected."""
    gr.Markdown("Every subset of the image's regions against every phrase of the caption's tree: each node takes "
                "its best subset (exact enumeration), next to the linear-time NLA value over the same regions.")
    note = gr.Markdown(elem_id="powerclip-note")
    with gr.Row():
        node_a = gr.Dropdown([], label="Node of caption A", elem_id="node-a")
        node_b = gr.Dropdown([], label="Node of caption B", elem_id="node-b")
    with gr.Row():
        tree_a = gr.Plot(label="Tree of caption A", elem_id="tree-a")
        tree_b = gr.Plot(label="Tree of caption B", elem_id="tree-b")
    with gr.Row():
        subset_a = gr.Image(label="Best region subset for the node of A", interactive=False, elem_id="subset-a")
        subset_b = gr.Image(label="Best region subset for the node of B", interactive=False, elem_id="subset-b")
    table = gr.Dataframe(headers=NODE_COLUMNS, label="Exact and NLA per node", interactive=False,
                         elem_id="powerclip-table", elem_classes=["wide-table"], wrap=True)
    result = main.result
    inputs = [result, node_a, node_b]
    drawn = [tree_a, tree_b, subset_a, subset_b, gr.Markdown(elem_id="powerclip-draw-note")]
    draw_while_seen(tab, shown, result, [(show_alignments, [result], [note, table, node_a, node_b]),
                                         (draw_nodes, inputs, drawn)], serving.light)
    for control in (node_a, node_b):
        control.change(draw_nodes, inputs, drawn, trigger_mode="always_last", **serving.light)
