"""The SGI heat map: the figure ``make_subplots`` would lay out, built in one step, with the regions that matter
named; the display copy of an image."""

import numpy as np
import pytest
from PIL import Image, ImageDraw
from plotly.subplots import make_subplots

from explorer.core import image_state
from explorer.drawing import display
from explorer.images.fit import frame_of, view_state
from explorer.images.inputs import Upload
from explorer.images.regions import Region
from explorer.language.text import Segment
from explorer.methods.sgi import SegmentMatch, SGIEvidence
from explorer.methods.sgi import pictures as sgi_pictures


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
    fig = sgi_pictures.sgi_heatmap(shown)
    reference = make_subplots(rows=rows, cols=1, subplot_titles=[t.replace("<", "&lt;").replace(">", "&gt;")
                                                                 for t in shown], vertical_spacing=sgi_pictures.SGI_ROW_GAP)
    for r in range(rows):
        axis = str(r + 1) if r else ""
        for name in (f"xaxis{axis}", f"yaxis{axis}"):
            assert fig.layout[name].anchor == reference.layout[name].anchor
            assert fig.layout[name].domain == pytest.approx(reference.layout[name].domain, abs=1e-12)
        assert fig.layout[f"xaxis{axis}"].title.text == (sgi_pictures.SGI_X_TITLE if r == rows - 1 else "")  # said once
        assert fig.layout[f"yaxis{axis}"].title.text == (sgi_pictures.SGI_Y_TITLE if r == 0 else "")
    ours, theirs = fig.layout.annotations, reference.layout.annotations
    assert [a.text for a in ours] == [a.text for a in theirs]  # escaped: a caption is never markup
    for a, b in zip(ours, theirs):  # above its block as a subplot's title, ending at the block's right edge
        assert (a.x, a.xanchor, a.yanchor, a.xref, a.yref) == (1.0, "right", b.yanchor, b.xref, b.yref)
        assert a.y == pytest.approx(b.y, abs=1e-12)
    # each caption's heat map and best-region boxes sit on its own row's axes, on one colour range
    axes = [(f"x{a}", f"y{a}") for a in ["", *map(str, range(2, rows + 1))]]
    assert [(t.type, t.xaxis, t.yaxis) for t in fig.data] == [("heatmap", x, y) for x, y in axes]
    low, high = min(float(ev.matrix.min()) for ev in shown.values()), max(float(ev.matrix.max()) for ev in shown.values())
    assert all((t.zmin, t.zmax) == (low, high) for t in fig.data)
    assert [t.showscale for t in fig.data] == [True] + [False] * (rows - 1)
    for t, (x, y), ev in zip(fig.data, axes, shown.values()):  # regions down, segments across
        columns = sgi_pictures.sgi_columns(ev)
        np.testing.assert_array_equal(t.z, ev.matrix[:, columns].T)
        named = [display.region_name(i, ev.regions[i], display.Place(1.0), "<br>") for i in columns]
        assert list(t.y) == named  # two short lines
        assert list(t.x) == [sgi_pictures.segment_label(k, m.segment.text) for k, m in enumerate(ev.matches)]
        assert boxed(fig, x, y) == [(k, columns.index(m.crop)) for k, m in enumerate(ev.matches)]


def boxed(fig, x: str, y: str) -> list[tuple[int, int]]:
    """The (column, row) cells boxed on the axes x, y: each a rectangle one cell wide and high."""
    cells = [s for s in fig.layout.shapes if (s.xref, s.yref) == (x, y)]
    assert all(s.type == "rect" and s.x1 - s.x0 == 1 and s.y1 - s.y0 == 1 for s in cells)
    return [(int(s.x0 + 0.5), int(s.y0 + 0.5)) for s in cells]


def test_sgi_heatmap_shows_each_segments_best_and_the_top_regions_named_and_ranked():
    ev = evidence(["red square", "blue circle", "a red square and a blue circle"], 88, 7)
    fig = sgi_pictures.sgi_heatmap({"A: a red square and a blue circle": ev})
    heat, = fig.data
    names = list(heat.y)
    assert len(names) == sgi_pictures.SGI_COLUMNS == len(set(names))  # at most K columns, each named once
    shown = [int(name.split()[0][1:]) for name in names]  # "r12 segment 8×8 @12,12" -> 12
    assert names == [display.region_name(i, ev.regions[i], display.Place(1.0), "<br>") for i in shown]
    best = {m.crop for m in ev.matches}
    others = [i for i in np.argsort(-ev.matrix.max(0)).tolist() if i not in best]
    assert set(shown) == best | set(others[: sgi_pictures.SGI_COLUMNS - len(best)])  # every segment's best, then the top...
    assert list(ev.matrix[:, shown].max(0)) == sorted(ev.matrix[:, shown].max(0), reverse=True)  # best first
    assert list(heat.x) == ["1. red<br>square", "2. blue<br>circle",  # numbered as on the picture, wrapped short
                            "3. a red<br>square<br>and a<br>blue<br>circle"]
    assert boxed(fig, "x", "y") == [(k, shown.index(m.crop)) for k, m in enumerate(ev.matches)]  # ...boxed in its column


def test_sgi_heatmap_reads_on_a_phone_with_regions_down_and_a_few_segments_across():
    """At 390 px a caption's cosines stay readable in their cells: its few segments across (each named in lines of
    SGI_SEGMENT_CHARS), its SGI_COLUMNS regions down, a row tall enough for a cosine, the colour bar beside the first
    block only (clear of the next caption's title)."""
    shown = {f"{k}: a red square and a blue circle": evidence(["red square", "blue circle", "a red square and a blue "
                                                               "circle"], 40, i) for i, k in enumerate("AB")}
    fig = sgi_pictures.sgi_heatmap(shown)
    for heat in fig.data:
        assert len(heat.x) == 3 and len(heat.y) == sgi_pictures.SGI_COLUMNS and heat.texttemplate == "%{z:.2f}"
        assert all(len(line) <= sgi_pictures.SGI_SEGMENT_CHARS for label in heat.x for line in label.split("<br>"))
    plot = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
    block = plot * (fig.layout.yaxis.domain[1] - fig.layout.yaxis.domain[0])
    assert block / sgi_pictures.SGI_COLUMNS >= 20  # a row's height in pixels: a 12 px cosine fits
    bar = fig.data[0].colorbar
    assert (bar.y - bar.len / 2, bar.y + bar.len / 2) == pytest.approx(tuple(fig.layout.yaxis.domain))


def test_a_region_is_named_by_its_number_kind_size_and_place():
    assert display.region_name(0, Region((0, 0, 64, 48), "image")) == "r0 whole image"
    assert display.region_name(12, Region((10, 20, 50, 58), "crop")) == "r12 crop 40\u00d738 @10,20"
    # a 1600 x 900 upload read at 1024 x 576: named in the upload's own pixels
    assert (display.region_name(2, Region((256, 0, 1024, 768), "crop"), display.Place(1600 / 1024))
            == "r2 crop 1200\u00d71200 @400,0")


def test_a_regions_place_is_in_the_uploads_own_pixels_on_a_padded_view():
    """A 1600 x 900 slide read at 1024 x 576 and padded to a 1024 square: a region of the square is named where it
    lies on the slide the user uploaded, not in the square's pixels."""
    image_state.forget()
    slide = Image.new("RGB", (1024, 576), "white")
    ImageDraw.Draw(slide).rectangle((100, 100, 900, 300), fill="red")  # wide: the slide is padded, not cut
    image_state.of(slide).keep(Upload((1600, 900)))  # as reading the upload keeps its own size
    seen = view_state(slide, "whole")
    assert frame_of(seen).fit.box == (0, -224, 1024, 800)  # letterboxed: the slide starts 224 px down the square
    place = display.upload_place(seen)
    assert (display.region_name(5, Region((100, 324, 300, 524), "object"), place)
            == "r5 object 313\u00d7313 @156,156")  # (100, 100) on the slide read, 1.5625 times in the upload's pixels


def pieces_evidence() -> SGIEvidence:
    """An object segment whose highest cosine is a piece's (a crop cutting a shape), which it may not match."""
    regions = (Region((0, 0, 64, 64), "image"), Region((0, 0, 20, 20), "piece"), Region((0, 0, 40, 40), "crop"),
               Region((30, 30, 60, 60), "object"))
    matrix = np.asarray([[0.5, 0.8, 0.6, 0.66], [0.4, 0.7, 0.3, 0.2]], dtype=np.float32)
    segs = [Segment("object", "blue square", (0,), (0, 11)), Segment("caption", "a blue square", (0,), (0, 13))]
    matches = (SegmentMatch(segs[0], "a blue square", 3, 0.66), SegmentMatch(segs[1], "a blue square", 1, 0.7))
    return SGIEvidence(regions, matches, matrix)


def test_the_heat_map_boxes_the_best_cell_a_segment_may_match_and_greys_the_others():
    ev = pieces_evidence()
    np.testing.assert_array_equal(ev.allowed, [[True, False, True, True], [True, True, True, False]])
    fig = sgi_pictures.sgi_heatmap({"B: a blue square": ev})
    coloured, grey = fig.data
    columns = sgi_pictures.sgi_columns(ev)
    z = ev.matrix[:, columns].T
    ok = ev.allowed[:, columns].T
    shown, apart = np.asarray(coloured.z, dtype=float), np.asarray(grey.z, dtype=float)
    np.testing.assert_array_equal(np.isnan(shown), ~ok)  # the cells a segment may not match are not coloured...
    np.testing.assert_array_equal(np.where(ok, np.nan, z), apart)  # ...but grey, with their cosine
    for k, row in boxed(fig, "x", "y"):  # each box on its column's best coloured cell, the match SGI made
        assert shown[row, k] == np.nanmax(shown[:, k]) == pytest.approx(ev.matches[k].similarity)
    assert shown[columns.index(1), 0] != shown[columns.index(1), 0]  # the piece's 0.80 is not the object's to box
    legend = fig.layout.annotations[-1].text.replace("<br>", " ")
    assert "piece" in legend and "never matched to a piece" in legend


def test_the_heat_map_has_no_grey_legend_where_every_cell_may_be_matched():
    fig = sgi_pictures.sgi_heatmap({"A: a red square": evidence(["red square"], 5, 0)})
    assert len(fig.data) == 1 and "piece" not in fig.layout.annotations[-1].text


def test_a_long_caption_title_wraps_to_a_phones_width():
    fig = sgi_pictures.sgi_heatmap({"A: a small red square to the left of a large blue circle": evidence(["red square"], 5, 0)})
    lines = fig.layout.annotations[0].text.split("<br>")
    assert len(lines) == 2 and all(len(line) <= sgi_pictures.SGI_TITLE_CHARS for line in lines)


def test_display_image_is_scaled_once_per_content_and_handed_out_as_a_copy(monkeypatch):
    scaled = []
    real = display._scaled
    monkeypatch.setattr(display, "_scaled", lambda image, side: scaled.append(side) or real(image, side))
    image_state.forget()
    image = Image.fromarray(np.random.default_rng(0).integers(0, 255, (300, 200, 3), dtype=np.uint8))
    first, place = display.display_image(image)
    assert first.size == (299, 448) and place.f == pytest.approx(448 / 300) and (place.dx, place.dy) == (0, 0)
    ImageDraw.Draw(first).rectangle((0, 0, 50, 50), fill="red")  # an overlay drawn on the first copy
    again, _ = display.display_image(image.copy())  # same pixels, another object
    assert scaled == [display.DISPLAY_SIDE]
    assert np.asarray(again)[10, 10].tolist() != [255, 0, 0]  # the kept picture is not the one drawn on
    np.testing.assert_array_equal(np.asarray(again), np.asarray(real(image, display.DISPLAY_SIDE).picture))
    assert display.display_image(image, 224)[0].size == (149, 224) and scaled == [display.DISPLAY_SIDE, 224]
