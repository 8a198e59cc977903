"""One analysis, every panel drawn from it: the page's handlers driven on five pictures (a world example, a 1600 x 900
slide, a 1200 x 800 page of small shapes, a 300 px pad drawing, a phone-sized photo), and every number two panels
show for one quantity the same to the coarser of their printed precisions: the table (4 places), the maps and the
interactions (3), the image-A column of the 2 x 2 the page makes (image B drawn), the report's numbers, the SGI heat
map (2 in its cells) and its crop map (3); each heat map box the best of the cells its segment may match."""

import base64
import html
import json
import re
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest
import skimage.data
from gradio_client import Client, handle_file
from PIL import Image, ImageDraw

from explorer.engine import Engine
from explorer.methods.sgi.method import TIE
from explorer.ui.app import build_app
from explorer.world.examples import examples
from tests.app_server import launched

A, B = "a red square and a blue circle", "a blue square and a red circle"
PRINTED = {"table": 0.5e-4, "maps": 0.5e-3, "heat map cell": 0.5e-2}  # half the last printed place of each


def shapes(size: tuple[int, int], boxes: list[tuple[int, int, int, int]], background="white") -> Image.Image:
    """A picture with a red square and a blue circle at the first two ``boxes``, grey and green shapes at the rest."""
    image = Image.new("RGB", size, background)
    draw = ImageDraw.Draw(image)
    for k, box in enumerate(boxes):
        [draw.rectangle, draw.ellipse][k % 2](box, fill=["red", "blue", "grey", "green"][k % 4])
    return image


def pictures(folder: Path) -> dict[str, Path]:
    """The five pictures the page is driven on."""
    world_example = next(e.path for e in examples() if e.path.name.startswith("world-"))
    photo = Image.fromarray(skimage.data.astronaut()).resize((1200, 1600))  # a phone's 3:4 upright photo
    ImageDraw.Draw(photo).rectangle((100, 1200, 400, 1500), fill="red")
    ImageDraw.Draw(photo).ellipse((800, 1200, 1100, 1500), fill="blue")
    made = {"slide": shapes((1600, 900), [(60, 300, 360, 600), (1240, 300, 1540, 600)]),  # shapes at the slide's sides
            "small shapes": shapes((1200, 800), [(100 + 180 * k, 300 + 60 * (k % 2), 160 + 180 * k, 360 + 60 * (k % 2))
                                                 for k in range(6)]),
            "pad drawing": shapes((300, 300), [(30, 40, 130, 140), (170, 150, 270, 250)]),
            "phone photo": photo}
    out = {"world example": world_example}
    for name, image in made.items():
        out[name] = folder / f"{name.replace(' ', '-')}.{'jpg' if name == 'phone photo' else 'png'}"
        image.save(out[name])
    return out


@pytest.fixture(scope="module")
def page(embedded):
    engine = Engine(embedded)
    return engine, build_app(engine)


def same(a: float, b: float, printed: str) -> bool:
    return abs(a - b) <= PRINTED[printed] + 1e-6


def boxed_cells(fig) -> list[tuple[int, int]]:
    """The (column, row) cells the first caption block's boxes stand on."""
    return [(int(s.x0 + 0.5), int(s.y0 + 0.5)) for s in fig.layout.shapes if (s.xref, s.yref) == ("x", "y")]


def objects(fig) -> list[tuple[int, ...]]:
    """(width, height, x, y) of each object window the heat map's first block names ("r88 object<br>267×265
    @47,308")."""
    found = [re.search(r"object<br>(\d+)\u00d7(\d+) @(-?\d+),(-?\d+)", label) for label in fig.data[0].y]
    return [tuple(map(int, f.groups())) for f in found if f]


def figure(value) -> go.Figure:
    """A plot as the served page sends it (``{"type": "plotly", "plot": JSON}``), as a plotly figure."""
    return pio.from_json(value["plot"])


def array(value) -> np.ndarray:
    """A figure's array as plotly's JSON may carry it: a list, or typed (``{"dtype", "bdata", "shape"}``, base64)."""
    if not isinstance(value, dict):
        return np.asarray(value, dtype=float)
    flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"]).astype(float)
    shape = value.get("shape")
    return flat.reshape([int(n) for n in str(shape).split(",")]) if shape else flat


def cosine_in(title: str, after: str = "cosine ") -> float:
    """The cosine a figure's title prints after ``after``."""
    return float(title.replace("<br>", " ").split(after)[-1].split("<")[0].split(";")[0].split(")")[0])


@pytest.mark.slow
def test_every_panel_of_the_served_page_gives_the_analysis_number_on_five_pictures(page, tmp_path):
    """Through gradio_client, as a browser's page calls them: /analyze (the table, the SGI heat map), /looks (the
    maps; SGI's crop map), /interactions, /make_b (the 2 x 2, image B drawn) and /report, one session a picture."""
    engine, demo = page
    demo.queue()
    url = launched(demo)
    two_by_twos = []
    try:
        for name, path in pictures(tmp_path).items():
            client, upload = Client(url, verbose=False), handle_file(str(path))
            *_, table, _, _, heat = client.predict(upload, A, B, api_name="/analyze")
            rows = {row[0]: row for row in table["data"]}  # method label -> [label, prefers, A, B, A - B]
            globals_ = rows["global cosine"][2:4]

            # the maps (the explainer's, whole caption) and the interactions: the table's global cosines
            looks = client.predict(upload, A, B, None, None, "explainer", api_name="/looks")
            client.predict(upload, A, B, None, "whole picture", api_name="/interactions")  # its menu of words, as
            # the page's comparison fills it
            inter = client.predict(upload, A, B, "red", "whole picture", api_name="/interactions")
            for maps in (looks[3:5], inter[2:4]):
                for value, cosine in zip(maps, globals_):
                    title = figure(value).layout.title.text
                    assert same(cosine_in(title), cosine, "maps"), (name, title, cosine)

            # the SGI heat map: each box on its column's best cell the segment may match; its segments' mean the
            # table's SGI; the crop map of segment 0 titled with its boxed cell's cosine
            heat = figure(heat)
            coloured = array(heat.data[0].z)
            boxed = boxed_cells(heat)
            for k, row in boxed:
                assert coloured[row, k] >= np.nanmax(coloured[:, k]) - TIE, (name, k)  # the best, or tied with it
            assert same(np.mean([coloured[row, k] for k, row in boxed]), rows["SGI"][2], "heat map cell"), name
            if name == "slide":  # read at 1024 x 576 and padded: its regions named on the slide as uploaded
                assert any(x <= 60 and y <= 300 and x + w >= 360 and y + h >= 600 for w, h, x, y in objects(heat))
            crop = figure(client.predict(upload, A, B, None, 0, "sgi", api_name="/looks")[3])
            said = cosine_in(crop.layout.title.text, "crop: cosine ")
            first = next(coloured[row, k] for k, row in boxed if k == 0)
            assert same(said, first, "heat map cell"), (name, crop.layout.title.text)

            # the 2 x 2 the page makes: its image-A column as printed, the table's
            note, *_, cells, _ = client.predict(upload, A, B, "whole", api_name="/make_b")
            if not cells:  # no image B for this picture: the page says why, and keeps the one-image view
                assert "still holds" in note, (name, note)
            else:
                two_by_twos.append(name)
                labels = re.findall(r"<figcaption><strong>(.*?)</strong>", cells)
                assert sorted(map(html.unescape, labels)) == sorted(rows), (name, labels)
                for label in labels:
                    block = cells[cells.index(f"<figcaption><strong>{label}</strong>"):]
                    printed = {c: float(v) for c, v in re.findall(r'data-cell="(\w\w)">(-?[\d.]+)', block)[:4]}
                    row = rows[html.unescape(label)]
                    assert same(printed["AA"], row[2], "table") and same(printed["BA"], row[3], "table"), name

            # the report's numbers: the table's
            files, _ = client.predict(upload, A, B, api_name="/report")
            said = json.loads(Path(next(f for f in files if str(f).endswith(".json"))).read_text())["scores"]
            for score in said:
                row = next(r for r in rows.values() if r[0] == score["label"])
                assert same(score["a"], row[2], "table") and same(score["b"], row[3], "table"), name
    finally:
        demo.close()
    assert {"world example", "slide", "pad drawing"} <= set(two_by_twos), two_by_twos


def test_an_edit_to_either_caption_or_the_view_is_one_event_that_keeps_only_the_last(page):
    """Caption A, caption B and the view feed one always-last rescoring event: results of an earlier edit (say B's,
    still running) can never land after a later edit's (A cut away), which two separate events allowed."""
    _, app = page
    ids = {c.elem_id: c._id for c in app.blocks.values() if getattr(c, "elem_id", None)}
    edits = {(ids["caption-a"], "change"), (ids["caption-b"], "change"), (ids["view"], "change")}
    rescoring = [(d, app.fns[i].name) for i, d in enumerate(app.config["dependencies"])
                 if edits & {tuple(t) for t in d["targets"]} and app.fns[i].name == "follow"]
    assert len(rescoring) == 1, rescoring
    (event, _), = rescoring
    assert {tuple(t) for t in event["targets"]} == edits and event["trigger_mode"] == "always_last"
