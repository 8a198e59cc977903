"""The drawing pad read like an upload, and the page's proposal and 2 x 2, through gradio_client in process."""

import base64
import io
import json
import re
import struct
import zlib
from pathlib import Path

import pytest
from gradio_client import Client, handle_file
from PIL import Image, ImageDraw

from explorer import world
from explorer.ui.pad import drawing_file, page_image
from tests.app_server import running_app


@pytest.fixture(scope="module")
def client(embedded):
    with running_app(embedded, methods=["global", "sgi"]) as url:
        yield Client(url, verbose=False)


def _pad_value(tmp_path) -> tuple[dict, Image.Image]:
    """A drawing as the pad sends it (a background, one RGBA layer of strokes, their composite), and the same
    picture flattened as a PNG a user would upload."""
    background = Image.new("RGBA", (300, 300), (235, 235, 235, 255))
    layer = Image.new("RGBA", (300, 300), (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    draw.rectangle((40, 110, 130, 200), fill=(*world.COLORS["red"], 255))
    draw.ellipse((170, 110, 260, 200), fill=(*world.COLORS["blue"], 255))
    composite = Image.alpha_composite(background, layer)
    paths = {}
    for name, image in (("background", background), ("layer", layer), ("composite", composite)):
        paths[name] = tmp_path / f"{name}.png"
        image.save(paths[name])
    value = {"background": handle_file(str(paths["background"])), "layers": [handle_file(str(paths["layer"]))],
             "composite": handle_file(str(paths["composite"]))}
    return value, composite.convert("RGB")


def test_a_drawing_through_the_pad_scores_as_the_same_png_uploaded(client, tmp_path):
    value, flat = _pad_value(tmp_path)
    drawn, _ = client.predict(value, None, api_name="/drawing")
    uploaded = tmp_path / "upload.png"
    flat.save(uploaded)
    assert Image.open(drawn).convert("RGB").tobytes() == flat.tobytes()
    a, b = "a red square and a blue circle", "a blue square and a red circle"
    from_pad = client.predict(handle_file(drawn), a, b, api_name="/analyze")
    from_file = client.predict(handle_file(str(uploaded)), a, b, api_name="/analyze")
    assert from_pad[2]["data"] == from_file[2]["data"] and from_pad[0].startswith("Done")


def test_the_pad_writes_one_file_per_drawing_and_none_for_an_empty_pad():
    image = Image.new("RGB", (20, 20), "white")
    assert drawing_file({"background": image, "layers": [], "composite": image}) == drawing_file(image.copy())
    assert drawing_file(None) is None and drawing_file({"background": None, "layers": [], "composite": None}) is None


def test_a_blank_pad_replaces_a_drawing_but_never_an_uploaded_picture(tmp_path):
    blank = Image.new("RGB", (30, 30), (235, 235, 235))
    drawn = blank.copy()
    ImageDraw.Draw(drawn).rectangle((5, 5, 15, 15), fill=world.COLORS["red"])
    uploaded = tmp_path / "photo.png"
    drawn.save(uploaded)
    assert page_image(blank, str(uploaded)) == {"__type__": "update"}  # opening the pad keeps the upload
    assert page_image(blank, None) == {"__type__": "update"}
    drawing = page_image(drawn, str(uploaded))  # the first stroke replaces it
    assert Image.open(drawing).convert("RGB").tobytes() == drawn.tobytes()
    cleared = page_image(blank, drawing)  # the pad cleared: the page shows the blank canvas, not the old drawing
    assert Image.open(cleared).convert("RGB").tobytes() == blank.tobytes()


def test_the_page_proposes_captions_makes_image_b_and_reads_the_2x2(client, tmp_path):
    value, flat = _pad_value(tmp_path)
    drawn, _ = client.predict(value, None, api_name="/drawing")
    a, b, said = client.predict(handle_file(drawn), "", "", api_name="/propose")
    assert (a, b) == ("a red square and a blue circle", "a blue square and a red circle")
    assert "red square" in said and "sure" in said
    kept = client.predict(handle_file(drawn), "my own caption", "", api_name="/propose")
    assert kept[0] == {"__type__": "update"} and "Your captions are kept" in kept[2]  # the typed box untouched
    note, image_a, image_b, table, cosines, files = client.predict(handle_file(drawn), a, b, api_name="/make_b")
    assert note.startswith("Image B: the red square made a blue square"), note
    made = Image.open(image_b).convert("RGB")
    assert made.getpixel((85, 155)) == world.COLORS["blue"] and made.getpixel((215, 155)) == world.COLORS["red"]
    assert table["headers"] == ["method", "text", "image", "group", "prefers", "why"]
    assert [row[0] for row in table["data"]] == ["global cosine", "SGI"]
    assert all(cell in ("\u2713 yes", "\u2717 no") for row in table["data"] for cell in row[1:4])
    assert all(row[5] for row in table["data"])  # every verdict with its reason
    for label in ("global cosine", "SGI"):  # each method's four scores, 4 places each
        grid = cosines.split(f"<strong>{label}</strong>")[1].split("</figure>")[0]
        assert len(re.findall(r'data-cell="[AB][AB]">\d\.\d{4}', grid)) == 4, grid
    taken = json.loads(Path(next(f for f in files if f.endswith(".json"))).read_text())
    assert set(taken["two_by_two"]) == {"global", "sgi"} and taken["image_a"]["captions"] == {"A": a, "B": b}
    carried = Image.open(io.BytesIO(base64.b64decode(taken["pictures_png_base64"]["A"]))).convert("RGB")
    assert carried.tobytes() == flat.tobytes()  # the drawing travels with the report
    refused = client.predict(handle_file(drawn), a, "a red square to the left of a blue circle",
                             api_name="/make_b")
    assert "Cannot run" in refused[0] and refused[2] is None and refused[3]["data"] == []


def _header_only_png(path: Path, width: int, height: int) -> None:
    """A PNG that claims ``width`` x ``height`` pixels and holds none (a decompression bomb's header)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                     + chunk(b"IEND", b""))


def test_a_bomb_put_on_the_pad_is_refused_by_the_pages_reader_with_a_message(client, tmp_path):
    bomb = tmp_path / "huge.png"
    _header_only_png(bomb, 20_000, 20_000)
    value = {"background": handle_file(str(bomb)), "layers": [], "composite": handle_file(str(bomb))}
    kept, said = client.predict(value, None, api_name="/drawing")
    assert kept == {"__type__": "update"}  # the page's image untouched
    assert "huge.png" in said and "400,000,000 pixels, too many" in said and "Cannot run" in said, said
    value, flat = _pad_value(tmp_path)
    drawn, said = client.predict(value, None, api_name="/drawing")  # the next drawing is taken as before
    assert said == "" and Image.open(drawn).convert("RGB").tobytes() == flat.tobytes()


def test_a_drawing_sent_again_unchanged_leaves_the_pages_image_as_it_is(tmp_path):
    """The editor sends a stroke twice (its ``input`` and its ``change``), the second with the page's image as it was
    before the first: set again, the page's image would be read, compared and its 2 x 2 cleared a second time for
    the same picture."""
    def given(path: str) -> str:  # the page's image as gradio hands it on: a copy with the drawing's name
        (tmp_path / Path(path).name).write_bytes(Path(path).read_bytes())
        return str(tmp_path / Path(path).name)

    drawn = Image.new("RGB", (30, 30), (235, 235, 235))
    ImageDraw.Draw(drawn).rectangle((5, 5, 15, 15), fill=world.COLORS["red"])
    first = given(page_image(drawn, None))
    assert page_image(drawn.copy(), first) == {"__type__": "update"}  # the page shows it already
    ImageDraw.Draw(drawn).ellipse((18, 18, 28, 28), fill=world.COLORS["blue"])
    second = page_image(drawn, first)  # a new stroke: set
    assert Image.open(second).convert("RGB").tobytes() == drawn.tobytes()
    assert page_image(drawn, first, second) == {"__type__": "update"}  # the stroke again, with the image before it
    uploaded = tmp_path / "photo.png"
    drawn.save(uploaded)
    assert page_image(drawn, str(uploaded), second) == second  # an upload since: the drawing replaces it again
