"""The notebook API and its page: docs/notebook.md's code runs offline on the embedded model and gives the page's
table and pictures."""

import re
from pathlib import Path

import plotly.graph_objects as go
from conftest import page_labels
from PIL import Image

from explorer.explain.interaction_record import HEADERS, recorded_rows

ROOT = Path(__file__).resolve().parents[1]


def test_the_notebook_page_runs_as_written(tmp_path, monkeypatch, capsys):
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "notebook.md").read_text(), flags=re.S)
    assert len(blocks) == 3
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    for block in blocks:
        exec(compile(block, "docs/notebook.md", "exec"), scope)
    printed = capsys.readouterr().out
    assert "world-clip (embedded)" in printed and "global cosine" in printed and "prefers" in printed
    table, figures = scope["table"], scope["figures"]
    assert list(table.columns) == ["method", "prefers", "A", "B", "A - B"]
    assert list(table["method"]) == page_labels()
    assert set(figures) == {"sgi overlay A", "sgi overlay B", "sgi heatmap", "tflocal A", "tflocal B",
                            "powerclip tree A", "powerclip tree B", "powerclip subset A", "powerclip subset B"}
    assert Image.open(tmp_path / "sgi-A.png").width == 448 and (tmp_path / "sgi-heatmap.html").stat().st_size > 1000
    binding = scope["binding"]  # the recorded binding reading of the interactions, as the maps tab shows it
    assert list(binding.columns) == HEADERS and list(binding.itertuples(index=False, name=None)) == \
        [tuple(row) for row in recorded_rows()]
    assert "right object (world-clip)" in printed and len(binding) >= 4


def test_the_api_scores_as_the_engine_and_draws_only_what_ran(embedded, tmp_path):
    from explorer import world
    from explorer.api import Explorer
    from explorer.engine import Engine

    path = tmp_path / "scene.png"
    world.swap_items("id", "attribute", 1)[0].images[0].render(128).save(path)
    explorer = Explorer(methods=("global", "sgi"))
    result = explorer.analyze(path, "a red square and a blue circle", "a blue square and a red circle")
    want = Engine(embedded, method_names=("global", "sgi")).analyze(
        Image.open(path).convert("RGB"), "a red square and a blue circle", "a blue square and a red circle")
    assert result.table().equals(want.table())
    figures = result.figures()
    assert set(figures) == {"sgi overlay A", "sgi overlay B", "sgi heatmap"}
    heat = figures["sgi heatmap"]
    assert isinstance(heat, go.Figure)
    sgi = result.analysis.scores["sgi"]
    coloured = [t for t in heat.data if t.type == "heatmap" and t.name != "may not match"]  # greys apart, if any
    assert len(coloured) == 2  # one coloured heat map per caption
    assert len(heat.layout.shapes) == sum(len(s.evidence.matches) for s in sgi)  # each segment's choice boxed...
    assert all((s.x1 - s.x0, s.y1 - s.y0) == (1, 1) for s in heat.layout.shapes)  # ...in cell units


def test_an_analysis_taken_away_is_one_html_file_with_plotly_inlined_once_and_its_numbers(embedded, tmp_path):
    import json

    from explorer import world
    from explorer.engine import Engine, report

    image = world.swap_items("id", "attribute", 1)[0].images[0].render(128)
    analysis = Engine(embedded).analyze(image, "a red square and a blue circle", "a blue square and a red circle")
    html_path, json_path = report.write(image, analysis, tmp_path)
    page = html_path.read_text()
    assert page.count('<img alt="') == 6 and page.count('src="http') == 0  # pictures inline: nothing fetched
    assert page.count("Plotly.newPlot(") == 3 and page.count("plotly.js v") == 1  # one inlined script, 3 figures
    numbers = json.loads(json_path.read_text())
    assert [r["method"] for r in numbers["scores"]] == ["global", "sgi", "tflocal", "powerclip"]
    assert numbers["scores"][0]["a"] == analysis.scores["global"][0].value


def test_the_api_and_the_report_say_what_the_model_sees_of_a_wide_picture(embedded, tmp_path):
    import json

    from explorer import world
    from explorer.api import Explorer
    from explorer.engine import report

    wide = world.swap_items("id", "attribute", 1)[0].images[0].render(400).resize((640, 400))
    result = Explorer(methods=("global",)).analyze(wide, "a red square and a blue circle",
                                                     "a blue square and a red circle")
    picture, note = result.model_input()
    side = embedded.image_size
    assert picture.size == (side, side) and note.startswith("the whole 640 x 400 picture is read, padded above")
    assert result.analysis.model_input == note and result.analysis.model_box == (0, -120, 640, 520)
    html_path, json_path = report.write(result.image, result.analysis, tmp_path)
    page = html_path.read_text()
    assert "What the model sees: The whole 640 x 400 picture" in page and page.count('alt="What the model sees"') == 1
    said = json.loads(json_path.read_text())["model_input"]
    assert said["note"] == note and said["view"] == "whole" and said["box"] == [0, -120, 640, 520]
