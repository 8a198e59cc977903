"""The SGI heat map: the figure ``make_subplots`` would lay out, built in one step."""

import numpy as np
import pytest
from PIL import Image, ImageDraw
from plotly.subplots import make_subplots

from explorer import viz
from explorer.methods.sgi import SegmentMatch, SGIEvidence
from explorer.regions import Region
from explorer.text import Segment


def evidence(segments: list[str], regions: int, seed: int) -> SGIEvidence:
    matrix = np.random.default_rng(seed).uniform(-0.2, 0.9, (len(segments), regions)).astype("float32")
    matches = tuple(SegmentMatch(Segment("object", s, (i,), (0, len(s))), f"a {s}", int(matrix[i].argmax()),
                                 float(matrix[i].max())) for i, s in enumerate(segments))
    boxes = tuple(Region((i, i, i + 8, i + 8), "image" if i == 0 else "segment") for i in range(regions))
    return SGIEvidence(boxes, matches, matrix)


@pytest.mark.parametrize("rows", [1, 2, 3])
def test_sgi_heatmap_lays_out_the_rows_as_make_subplots(rows):
    shown = {f"{'ABC'[i]}: a <b>red</b> cube {i}": evidence(["red cube", "blue ball"][: 1 + i % 2], 5 + i, i)
             for i in range(rows)}
    fig = viz.sgi_heatmap(shown)
    reference = make_subplots(rows=rows, cols=1, subplot_titles=[t.replace("<", "&lt;").replace(">", "&gt;")
                                                                 for t in shown], vertical_spacing=viz.SGI_ROW_GAP)
    for r in range(rows):
        axis = str(r + 1) if r else ""
        for name in (f"xaxis{axis}", f"yaxis{axis}"):
            assert fig.layout[name].anchor == reference.layout[name].anchor
            assert fig.layout[name].domain == pytest.approx(reference.layout[name].domain, abs=1e-12)
        assert fig.layout[f"xaxis{axis}"].title.text == viz.SGI_X_TITLE
    ours, theirs = fig.layout.annotations, reference.layout.annotations
    assert [a.text for a in ours] == [a.text for a in theirs]  # escaped: a caption is never markup
    for a, b in zip(ours, theirs):
        assert (a.x, a.xanchor, a.yanchor, a.xref, a.yref) == (b.x, b.xanchor, b.yanchor, b.xref, b.yref)
        assert a.y == pytest.approx(b.y, abs=1e-12)
    # each caption's heat map and best-region marks sit on its own row's axes, on one colour range
    assert [(t.type, t.xaxis, t.yaxis) for t in fig.data] == [
        (kind, f"x{a}", f"y{a}") for a in ["", *map(str, range(2, rows + 1))] for kind in ("heatmap", "scatter")]
    heat = [t for t in fig.data if t.type == "heatmap"]
    low, high = min(float(ev.matrix.min()) for ev in shown.values()), max(float(ev.matrix.max()) for ev in shown.values())
    assert all((t.zmin, t.zmax) == (low, high) for t in heat)
    assert [t.showscale for t in heat] == [True] + [False] * (rows - 1)
    for t, marks, ev in zip(heat, fig.data[1::2], shown.values()):
        np.testing.assert_array_equal(t.z, ev.matrix)
        assert list(marks.x) == [m.crop for m in ev.matches]


def test_display_image_is_scaled_once_per_content_and_handed_out_as_a_copy(monkeypatch):
    scaled = []
    real = viz._scaled
    monkeypatch.setattr(viz, "_scaled", lambda image, side: scaled.append(side) or real(image, side))
    viz._displays.clear()
    image = Image.fromarray(np.random.default_rng(0).integers(0, 255, (300, 200, 3), dtype=np.uint8))
    first, factor = viz.display_image(image)
    assert first.size == (299, 448) and factor == pytest.approx(448 / 300)
    ImageDraw.Draw(first).rectangle((0, 0, 50, 50), fill="red")  # an overlay drawn on the first copy
    again, _ = viz.display_image(image.copy())  # same pixels, another object
    assert scaled == [viz.DISPLAY_SIDE]
    assert np.asarray(again)[10, 10].tolist() != [255, 0, 0]  # the kept picture is not the one drawn on
    np.testing.assert_array_equal(np.asarray(again), np.asarray(real(image, viz.DISPLAY_SIDE)[0]))
    assert viz.display_image(image, 224)[0].size == (149, 224) and scaled == [viz.DISPLAY_SIDE, 224]
