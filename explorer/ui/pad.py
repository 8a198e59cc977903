"""The drawing pad: shapes drawn in the world's colours on any background, read by the page like an upload.

Every change of the drawing is written as a PNG (named by its content) and handed to the page's image input, so a
drawing goes through the same reading, state, re-scoring and notices as an uploaded file. The editor hands its
pictures on unread (gradio would decode them before any check): the page's own reader opens them under the same
size cap, time limit and cancellation as an analysis.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import gradio as gr
from gradio.data_classes import FileData
from PIL import Image

from explorer import world
from explorer.images.inputs import read_image
from explorer.ui import sessions
from explorer.ui.guard import guarded
from explorer.ui.serving import Serving
from explorer.world.drawings import DRAWN_BACKGROUNDS
from explorer.world.examples import examples

CANVAS = 300  # pixels: the drawn splits' canvas
HINT = ("Draw shapes in the world's colours (the brush's palette) on a plain background: start from a blank canvas "
        "or an example below, or upload one onto the pad. The page reads your drawing like an uploaded image.")


def hex_colour(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def unread(file: FileData | bytes | None, flatten_on_white: bool = False) -> str | None:
    """The editor's converter for the pad: each picture handed to the handler as a file, unread, so that one too large
    for the page is refused by the page's reader with its message, not by a decoder inside gradio with a bare
    "Error"."""
    if file is None or isinstance(file, FileData):
        return file.path if file else None
    sent = f"sent-{hashlib.sha1(file).hexdigest()[:16]}"  # a picture the browser sent as bytes
    path = sessions.folder("drawings") / sent
    if not path.exists():
        path.write_bytes(file)
    return str(path)


def drawing_image(value: dict | Image.Image | str | None) -> Image.Image | None:
    """The pad's picture: its composite (the layers over the background) flattened on white, as RGB; None while
    the pad holds nothing. A file is read as an upload is (its size capped: ``InputError`` for one too large)."""
    picture = value.get("composite") if isinstance(value, dict) else value
    if picture is None:
        return None
    if isinstance(picture, (str, Path)):
        return read_image(picture)[0]
    picture = picture if isinstance(picture, Image.Image) else Image.fromarray(picture)
    if picture.mode in ("RGBA", "LA", "P"):
        flat = Image.new("RGB", picture.size, (255, 255, 255))
        flat.paste(picture.convert("RGBA"), mask=picture.convert("RGBA").getchannel("A"))
        return flat
    return picture.convert("RGB")


def drawing_file(value: dict | Image.Image | None) -> str | None:
    """The pad's picture as a PNG file named by its content (one drawing, one file), for the page's image input."""
    picture = drawing_image(value)
    if picture is None:
        return None
    name = hashlib.sha1(picture.tobytes() + str(picture.size).encode()).hexdigest()[:16]
    path = sessions.folder("drawings") / f"drawing-{name}.png"
    if not path.exists():
        picture.save(path)
    return str(path)


def is_drawing(path: str | None) -> bool:
    """Whether the page's image is a drawing the pad handed it (a file the pad wrote, by its name)."""
    name = Path(path).name if path else ""
    return name.startswith("drawing-") and (sessions.folder("drawings") / name).exists()


def page_image(value: dict | Image.Image | None, current: str | None = None, handed: str | None = None) -> str | dict:
    """The pad's drawing as the page's image. A canvas of one colour (nothing drawn) replaces only an earlier drawing,
    never an uploaded picture: opening the pad or picking a blank canvas keeps the picture the page shows. A drawing
    the page shows already, or the one the pad ``handed`` it last while the page shows a drawing, is left as it is
    (the editor sends one stroke twice, by ``input`` and ``change``, the second with the page's image as it was before
    the first): set again, it would be read, compared and the page's 2 x 2 cleared once more."""
    picture = drawing_image(value)
    if picture is None or (picture.getcolors(1) is not None and not is_drawing(current)):
        return gr.update()
    path = drawing_file(picture)
    shown = {Path(p).name for p in (current, handed) if p}
    return gr.update() if is_drawing(current) and Path(path).name in shown else path


def canvases() -> dict[str, str]:
    """Empty starting canvases, one per drawn background, as PNG files written once (a file is served as it is)."""
    paths = {}
    for name, rgb in DRAWN_BACKGROUNDS.items():
        paths[name] = str(sessions.root("drawings") / f"canvas-{name}.png")
        if not Path(paths[name]).exists():
            Image.new("RGB", (CANVAS, CANVAS), rgb).save(paths[name])
    return paths


def build(upload: gr.File, serving: Serving) -> gr.ImageEditor:
    """The pad, inside the current layout block; each change of the drawing becomes the page's image."""
    colours = [hex_colour(rgb) for rgb in world.COLORS.values()]
    gr.Markdown(HINT, elem_id="pad-hint")
    pad = gr.ImageEditor(value=canvases()["white"], type="filepath", image_mode="RGBA", label="Drawing pad",
                         brush=gr.Brush(colors=colours, default_color=colours[0], color_mode="fixed", default_size=16),
                         canvas_size=(CANVAS, CANVAS), height=380, elem_id="pad", layers=False)
    pad.convert_and_format_image = unread  # this editor's own converter (a subclass would make gradio write a .pyi)
    note = gr.Markdown(elem_id="pad-note")  # why a picture on the pad was not taken

    @guarded(lambda message: (gr.update(), message), serving.time_limit_s, " with a smaller picture")
    def use(value: dict | None, current: str | None = None):
        return page_image(value, current), ""

    @guarded(lambda message: (gr.update(), message, gr.update()), serving.time_limit_s, " with a smaller picture")
    def draw(value: dict | None, current: str | None, last: str | None):
        """The drawing as the page's image, and the drawing the pad has handed the page last (this session's)."""
        shown = page_image(value, current, last)
        return shown, "", shown if isinstance(shown, str) else last
    starts = [(f"blank, {name}", path) for name, path in canvases().items()]
    starts += [(e.name, str(e.path)) for e in examples()]
    # an example put on the pad is the page's image at once; a blank canvas becomes it with the first stroke
    gr.Examples([[path] for _, path in starts], inputs=[pad], example_labels=[name for name, _ in starts],
                label="Start from a blank canvas or an example", fn=use, outputs=[upload, note], run_on_click=True,
                api_name=False, examples_per_page=14)
    # both triggers: the editor drops its first `change` (the first stroke would be lost), and an `input` may carry
    # the drawing before its last stroke (a later `change` brings the whole drawing)
    handed = gr.State(None)  # read when the event runs (held by the server), not when the browser sent it
    gr.on([pad.input, pad.change], draw, [pad, upload, handed], [upload, note, handed], api_name="drawing",
          trigger_mode="always_last", **serving.light)
    return pad
