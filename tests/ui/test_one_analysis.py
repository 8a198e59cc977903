"""One analysis, every panel drawn from it: the page's handlers driven on five pictures (a world example, a 1600 x 900
slide, a 1200 x 800 page of small shapes, a 300 px pad drawing, a phone-sized photo), and every number two panels
show for one quantity the same to the coarser of their printed precisions: the table (4 places), the maps and the
interactions (3), the 2 x 2's image-A column, the report's numbers, the SGI heat map (2 in its cells) and its crop map
(3); each heat map box the best of the cells its segment may match."""

import json
import re
from pathlib import Path

import numpy as np
import pytest
import skimage.data
from PIL import Image, ImageDraw
from test_live_rescore import handler

from explorer.engine import Engine, report
from explorer.engine.swap import SwapResult
from explorer.methods.sgi import pictures as sgi_pictures
from explorer.methods.sgi.method import TIE
from explorer.ui import interactions_panel, looks_tab, swap_panel
from explorer.ui.app import build_app
from explorer.world.examples import examples

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


@pytest.mark.slow
def test_every_panel_gives_the_analysis_number_on_five_pictures(page, tmp_path):
    engine, demo = page
    choice = engine.default_choice
    for name, path in pictures(tmp_path).items():
        path = str(path)
        *_, table, _, _, heat, (image, analysis), _ = handler(demo, "analyze")(path, A, B, choice)
        rows = {r["method"]: r for r in analysis.rows()}
        shown = table.data.set_index("method") if hasattr(table, "data") else table.set_index("method")
        assert same(shown.loc[rows["global"]["label"], "A"], rows["global"]["a"], "table"), name
        globals_ = (rows["global"]["a"], rows["global"]["b"])

        # the maps (the explainer's, whole caption) and the interactions: the table's global cosines
        looks = looks_tab.draw(engine, path, A, B, choice, (image, analysis), None, None, "explainer")
        interactions = interactions_panel.draw(engine, path, A, B, choice, (image, analysis), "red", "whole picture")
        for figures in (looks[3:5], interactions[2:4]):
            for fig, cosine in zip(figures, globals_):
                printed = float(fig.layout.title.text.split("cosine ")[-1].split("<")[0].split(";")[0])
                assert same(printed, cosine, "maps"), (name, fig.layout.title.text, cosine)

        # the SGI heat map: each box on its column's best cell the segment may match, its cosine the match's; the
        # crop map of that segment titled with the same cosine
        sgi = analysis.scores["sgi"]
        coloured = np.asarray(heat.data[0].z, dtype=float)
        for k, row in boxed_cells(heat):
            assert coloured[row, k] >= np.nanmax(coloured[:, k]) - TIE, (name, k)  # the best, or tied with it
            assert same(coloured[row, k], sgi[0].evidence.matches[k].similarity, "heat map cell")
        assert same(np.mean([m.similarity for m in sgi[0].evidence.matches]), rows["sgi"]["a"], "table")
        if name == "slide":  # read at 1024 x 576 and padded: its regions named on the slide as uploaded (1600 x 900)
            assert any(x <= 60 and y <= 300 and x + w >= 360 and y + h >= 600 for w, h, x, y in objects(heat))
        crop = looks_tab.draw(engine, path, A, B, choice, (image, analysis), None, 0, "sgi")[3]
        said = float(crop.layout.title.text.replace("<br>", " ").split("crop: cosine ")[1].split(";")[0])
        assert same(said, sgi[0].evidence.matches[0].similarity, "maps"), name

        # the 2 x 2's image-A column and the report's numbers: the table's
        grids = swap_panel.grids(SwapResult(image, image, analysis, analysis, ()))
        for grid in grids:
            method = next(r for r in rows.values() if r["label"] == grid.label)
            assert same(grid.scores[0, 0], method["a"], "table") and same(grid.scores[1, 0], method["b"], "table")
        html_path, json_path = report.write(image, analysis, tmp_path / name.replace(" ", "-"))
        said = {r["method"]: r for r in json.loads(json_path.read_text())["scores"]}
        assert all(same(said[m]["a"], rows[m]["a"], "table") for m in rows), name
        assert sgi_pictures.SGI_Y_TITLE in html_path.read_text()  # the report's heat map is the page's


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
