"""Both sides of a swap taken away: one HTML file that opens offline (both pictures, both captions, the 2 x 2 and the
page's table) and its numbers as JSON, with both pictures in it as PNG, so the drawing travels with the report."""

from __future__ import annotations

import base64
import html
import io
import json
from pathlib import Path

from PIL import Image

from explorer.engine import report
from explorer.engine.swap import SwapResult


def png_text(image: Image.Image) -> str:
    """A picture as base64 PNG text."""
    data = io.BytesIO()
    image.save(data, "PNG")
    return base64.b64encode(data.getvalue()).decode()


def numbers(result: SwapResult) -> dict:
    """The 2 x 2's verdicts by method, both analyses' numbers, what was changed, and both pictures as PNG."""
    return {"two_by_two": {name: {"text": o.text, "image": bool(o.image), "group": o.correct, "margin": o.margin}
                           for name, o in result.outcomes().items()},
            "changed": list(result.changed), "image_a": report.numbers(result.analysis_a),
            "image_b": report.numbers(result.analysis_b),
            "pictures_png_base64": {"A": png_text(result.image_a), "B": png_text(result.image_b)}}


def page(result: SwapResult) -> str:
    """The 2 x 2 as one HTML document that needs nothing else to open."""
    a, b = result.analysis_a.captions
    pictures = (report._picture(result.image_a, "Image A", f"caption A: {a}")
                + report._picture(result.image_b, "Image B, made for caption B", "; ".join(result.changed)))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Binding explorer: both sides of {html.escape(a)}</title>
<style>body{{font-family:sans-serif;max-width:1100px;margin:auto;padding:1em}}figure{{display:inline-block;margin:.5em}}
img{{max-width:100%;image-rendering:pixelated;width:256px}}table{{border-collapse:collapse}}
td,th{{border:1px solid #999;padding:.2em .6em}}</style></head>
<body><h1>Binding explorer: both sides of the swap</h1>
<p>Model: <b>{html.escape(result.analysis_a.model)}</b>.<br>A: <i>{html.escape(a)}</i><br>B: <i>{html.escape(b)}</i></p>
{pictures}
<h2>The 2 x 2</h2><p>text: on each picture its own caption scores higher; image: each caption scores higher on its own
picture; group: both (chance 1 in 6). A, B and A - B: the scores on image A.</p>{result.table().to_html(index=False)}
</body></html>
"""


def write(result: SwapResult, folder: Path, name: str = "both-sides") -> tuple[Path, Path]:
    """``NAME.html`` (offline) and ``NAME.json`` (the numbers and both pictures) in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    html_path, json_path = folder / f"{name}.html", folder / f"{name}.json"
    html_path.write_text(page(result), encoding="utf-8")
    json_path.write_text(json.dumps(numbers(result), indent=2), encoding="utf-8")
    return html_path, json_path
