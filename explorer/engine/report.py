"""One analysis taken away: a self-contained HTML file (the scores, and the pictures of each method that ran, as its
``MethodInfo.figures`` names them, each with what it shows and its scale; plotly's script inlined once, pictures as data
URIs, so it opens offline) and its numbers as JSON."""

from __future__ import annotations

import base64
import html
import io
import json
from pathlib import Path

import plotly.graph_objects as go
from PIL import Image

from explorer.drawing.display import model_view
from explorer.engine import Analysis
from explorer.figures import viz


def _picture(image: Image.Image, title: str, about: str) -> str:
    data = io.BytesIO()
    image.save(data, "PNG")
    encoded = base64.b64encode(data.getvalue()).decode()
    return (f'<figure><img alt="{html.escape(title)}" src="data:image/png;base64,{encoded}">'
            f"<figcaption>{html.escape(title)}<br><small>{html.escape(about)}</small></figcaption></figure>")


def _sentence(note: str) -> str:
    """A note as a sentence: its first letter capital, a full stop after it."""
    return note[:1].upper() + note[1:] + "." if note else ""


def numbers(a: Analysis) -> dict:
    """The analysis's numbers: the model, the captions, each method's scores and preference, the notices."""
    return {"model": a.model, "device": a.device, "captions": {"A": a.captions[0], "B": a.captions[1]},
            "scores": a.rows(), "untrained": list(a.untrained), "notices": list(a.notices),
            "model_input": {"view": a.view, "note": a.model_input, "box": list(a.model_box) if a.model_box else None,
                            "fill": list(a.model_fill)}}


def page(image: Image.Image, a: Analysis) -> str:
    """The whole analysis as one HTML document that needs nothing else to open."""
    parts, script = [], "inline"  # plotly's script once, in the first figure
    for title, (info, figure) in viz.described_figures(a).items():
        about = f"{info.title}; scale: {info.scale}"
        if isinstance(figure, go.Figure):
            parts.append(f"<h3>{html.escape(title)}</h3><p>{html.escape(about)}</p>"
                         + figure.to_html(full_html=False, include_plotlyjs=script))
            script = False
        else:
            parts.append(_picture(figure, title, about))
    notices = "".join(f"<p class=notice>{html.escape(n)}</p>" for n in a.notices)
    if a.model_input:  # what the view and the preprocess cut or padded: drawn, where anything was
        seen = f"<p>What the model sees: {html.escape(_sentence(a.model_input))}</p>"
        if a.model_box is not None and a.model_box != (0, 0, *image.size):
            seen += _picture(model_view(image, a.model_box, a.model_fill), "What the model sees",
                             "greyed: cut before the model reads the image; past the picture's thin outline: "
                             "padding in the picture's background colour")
        notices += seen
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Binding explorer: {html.escape(a.captions[0])}</title>
<style>body{{font-family:sans-serif;max-width:1100px;margin:auto;padding:1em}}figure{{display:inline-block;margin:.5em}}
img{{max-width:100%}}table{{border-collapse:collapse}}td,th{{border:1px solid #999;padding:.2em .6em}}</style></head>
<body><h1>Binding explorer: one analysis</h1>
<p>Model: <b>{html.escape(a.model)}</b> on {html.escape(a.device)}.<br>A: <i>{html.escape(a.captions[0])}</i><br>
B: <i>{html.escape(a.captions[1])}</i></p>{notices}
<h2>Scores</h2>{a.table().to_html(index=False)}
<h2>Pictures</h2>{"".join(parts)}
</body></html>
"""


def write(image: Image.Image, analysis: Analysis, folder: Path, name: str = "analysis") -> tuple[Path, Path]:
    """``NAME.html`` (the page, offline) and ``NAME.json`` (the numbers) in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    html_path, json_path = folder / f"{name}.html", folder / f"{name}.json"
    html_path.write_text(page(image, analysis), encoding="utf-8")
    json_path.write_text(json.dumps(numbers(analysis), indent=2) + "\n", encoding="utf-8")
    return html_path, json_path
