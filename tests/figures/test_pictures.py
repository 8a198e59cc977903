"""The pictures carry their meaning without a legend: neutral marks named beside the picture, maps that change no
colour of the picture (drawn beside it), one colour scale where A and B are compared, PowerCLIP's pictures numbered
as its table."""

import colorsys

import numpy as np
import pytest
from PIL import Image

from explorer import world
from explorer.drawing import display
from explorer.drawing import maps as kit_maps
from explorer.drawing import marks
from explorer.engine import Engine
from explorer.figures import viz
from explorer.images.regions import Region
from explorer.language.text import Segment
from explorer.language.tree import TreeNode
from explorer.methods.powerclip import pictures as powerclip_pictures
from explorer.methods.powerclip import tree as viz_tree
from explorer.methods.powerclip.method import NodeAlignment, PowerCLIPEvidence
from explorer.methods.sgi import SegmentMatch, SGIEvidence
from explorer.methods.sgi import pictures as sgi_pictures
from explorer.methods.tflocal import AttentionEvidence
from explorer.methods.tflocal import pictures as tflocal_pictures
from explorer.ui.method_tab import handlers

TFLOCAL, POWERCLIP = handlers("tflocal"), handlers("powerclip")  # each tab's handlers, by their API names

RIGHT, WRONG = "a red square and a blue circle", "a blue square and a red circle"
SIZE = 128  # the scenes' pixels: 3.5 display pixels each


@pytest.fixture(scope="module")
def scene() -> Image.Image:
    a = world.WorldObject("red", "square", "large", 0.27, 0.3)
    b = world.WorldObject("blue", "circle", "large", 0.72, 0.7)
    return world.Scene((a, b)).render(SIZE)


def saturation(rgb: np.ndarray) -> np.ndarray:
    rgb = rgb.astype(float)
    return rgb.max(-1) - rgb.min(-1)


def hue(rgb) -> float:
    return colorsys.rgb_to_hsv(*(np.asarray(rgb, dtype=float) / 255))[0]


def sgi_evidence(boxes: list[tuple[int, int, int, int]]) -> SGIEvidence:
    """Three segments, each with its own best region: the boxes, after the whole image as r0."""
    regions = (Region((0, 0, SIZE, SIZE), "image"), *(Region(b, "crop") for b in boxes))
    texts = ["red square", "blue circle", "a red square and a blue circle"][: len(boxes)]
    matches = tuple(SegmentMatch(Segment("object", t, (i,), (0, len(t))), t, i + 1, 0.5 + i / 10)
                    for i, t in enumerate(texts))
    return SGIEvidence(regions, matches, np.zeros((len(texts), len(regions)), dtype=np.float32))


BOXES = [(14, 18, 56, 60), (0, 0, 70, 70), (72, 66, 118, 114)]  # the square's, one at the top edge, the circle's


def test_sgi_overlay_draws_in_neutral_ink_and_names_each_segment_below_the_picture(scene):
    out = np.asarray(sgi_pictures.sgi_overlay(scene, sgi_evidence(BOXES)))
    shown = np.asarray(display.display_image(scene)[0])
    top = out[: shown.shape[0]]
    drawn = np.abs(top.astype(int) - shown).max(-1) > 0
    assert drawn.sum() > 1000 and saturation(top[drawn]).max() <= 10  # boxes and badges: greys only, no hue
    strip = out[shown.shape[0]:]
    assert strip.shape[0] >= 3 * marks.badge_size("0", marks.label_font(display.DISPLAY_SIDE))[1]  # a row per segment
    assert saturation(strip).max() <= 10 and np.median(strip) > 200 and strip.min() < 60  # dark text on a light plate
    two = np.asarray(sgi_pictures.sgi_overlay(scene, sgi_evidence(BOXES[:2])))
    assert two.shape[0] < out.shape[0] and two.shape[1] == out.shape[1]  # the strip grows with the segments


def test_badges_sit_outside_every_box_apart_and_below_the_title_band():
    boxes = [(50.0, 60.0, 200.0, 210.0), (0.0, 0.0, 240.0, 240.0), (250.0, 230.0, 410.0, 400.0),
             (60.0, 70.0, 190.0, 200.0)]  # nested, at the top edge, apart, nested again
    sizes = [(14, 22), (14, 22), (14, 22), (30, 22)]
    spots = marks.badge_spots(boxes, sizes, (448, 448))
    for k, spot in enumerate(spots):
        assert 0 <= spot[0] and spot[2] < 448 and 448 * marks.TITLE_BAND <= spot[1] and spot[3] < 448
        assert not marks._overlaps(spot, boxes[k])  # never on its own box: the object stays seen
        assert not any(marks._overlaps(spot, other) for j, other in enumerate(spots) if j != k)
    assert not marks._overlaps(spots[2], boxes[1])  # and off the others' boxes where there is room
    whole = marks.badge_spots([(0.0, 0.0, 447.0, 447.0)], [(14, 22)], (448, 448))[0]
    assert whole[1] >= 448 * marks.TITLE_BAND  # a box with no room around it takes its lower corner


def attention_evidence(peak: int, share: float, grid: tuple[int, int] = (4, 4)) -> AttentionEvidence:
    """One token whose attention puts ``share`` on patch ``peak`` and spreads the rest evenly."""
    patches = grid[0] * grid[1]
    row = np.full(patches, (1 - share) / (patches - 1), dtype=np.float32)
    row[peak] = share
    return AttentionEvidence(("red",), row.reshape(1, 1, 1, patches), grid, (0, 0, SIZE, SIZE), 0.3, True)


def picture_and_map(out: np.ndarray, side: int = display.DISPLAY_SIDE) -> tuple[np.ndarray, np.ndarray]:
    """A drawn map's two parts: the picture (at the top left) and the map beside it, each ``side`` square."""
    beside = side + marks.BESIDE_GAP
    return out[:side, :side], out[:side, beside: beside + side]


def test_attention_keeps_every_colour_of_the_picture_and_draws_its_map_beside():
    """On a page about which object has which colour, the map changes no colour: a yellow star stays yellow and a
    white circle white (under a dark veil they read olive and grey); only the top part's outline is drawn on it."""
    star = world.WorldObject("yellow", "star", "large", 0.27, 0.3)
    circle = world.WorldObject("white", "circle", "large", 0.72, 0.7)
    image = world.Scene((star, circle)).render(SIZE)
    corner = 3 * 4 + 0  # the bottom-left patch: on neither object
    out = np.asarray(tflocal_pictures.attention_overlay(image, attention_evidence(corner, 0.5), [0]))
    shown = np.asarray(display.display_image(image)[0])
    picture, drawn_map = picture_and_map(out)
    changed = np.abs(picture.astype(int) - shown).max(-1) > 0
    assert 0 < changed.mean() < 0.1 and saturation(picture[changed]).max() <= 10  # the outline: greys, thin
    rows, cols = np.nonzero(changed[1:-1, 1:-1])  # inside the frame: the outline, around the bottom-left patch only
    assert rows.min() >= 448 * 3 / 4 - 20 and cols.max() <= 448 / 4 + 20
    for obj in (star, circle):  # every pixel of both objects as it was: the true colours
        at = (round(obj.cy * 448), round(obj.cx * 448))
        assert tuple(picture[at]) == world.COLORS[obj.color]
    assert (picture[2:-2, 2:-2][~changed[2:-2, 2:-2]] == shown[2:-2, 2:-2][~changed[2:-2, 2:-2]]).all()
    assert saturation(drawn_map).max() <= 10  # the map: greys, white where the attention is most, dark elsewhere
    assert drawn_map[440, 8].min() >= 250 and drawn_map[224, 224].max() <= 255 * kit_maps.MAP_FLOOR + 2


def test_attention_pictures_share_one_scale_and_carry_a_titled_bar(scene):
    strong, weak = attention_evidence(5, 0.5), attention_evidence(5, 0.25)
    a, b = (np.asarray(p) for p in tflocal_pictures.attention_pictures(scene, [(strong, [0]), (weak, [0])], None, None))
    side = display.DISPLAY_SIDE
    across = 2 * side + marks.BESIDE_GAP
    assert a.shape == b.shape and a.shape[1] == across and a.shape[0] > side
    map_a, map_b = (picture_and_map(x)[1] for x in (a, b))
    assert map_b[168, 168].max() < map_a[168, 168].max() - 20  # B's weaker peak is drawn darker: one scale
    np.testing.assert_array_equal(a[side:], b[side:])  # the same bar under both
    inner = a[side:, 4 * marks.GAP: across - 4 * marks.GAP, 0].astype(int)  # the bar's span, left to right
    ramps = [r for r, row in enumerate(inner) if (np.diff(row) >= 0).all() and np.ptp(row) > 150]
    assert len(ramps) >= 8  # a bar, from the darkest grey to white
    bar = side + ramps[0]
    assert inner[ramps[0]][0] <= 255 * kit_maps.MAP_FLOOR + 1 and inner[ramps[0]][-1] == 255
    assert saturation(a[side:]).max() <= 10 and a[side:bar].min() < 60  # its title and ticks: dark text above/below
    alone = picture_and_map(np.asarray(tflocal_pictures.attention_overlay(scene, weak, [0])))[1]
    assert alone[168, 168].max() > map_b[168, 168].max()  # on its own scale B's peak would be white


def node(label: str, text: str, tokens: tuple[int, int], children: tuple[int, ...], parent: int | None) -> TreeNode:
    return TreeNode(label, text, tokens, (0, len(text)), children, parent)


TREE = (node("S", "a red square near a blue circle", (0, 7), (1, 2), None), node("NP", "a red square", (0, 3), (), 0),
        node("PP", "near a blue circle", (3, 7), (3,), 0), node("NP", "a blue circle", (4, 7), (), 2))


def powerset_evidence(exact: list[float], best: list[tuple[int, ...]]) -> PowerCLIPEvidence:
    """Three regions on a 4 x 4 grid: the red square's (2 patches), the circle's (4) and a thin one (1)."""
    cells = np.zeros((3, 4, 4), dtype=bool)
    cells[0, 1, 0:2] = cells[1, 2:4, 2:4] = cells[2, 0, 3] = True
    pixels = np.kron(cells, np.ones((32, 32), dtype=bool))
    regions = tuple(Region(tuple(int(v) for v in (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1)), "segment", m)
                    for m in pixels for ys, xs in [np.nonzero(m)])
    alignments = tuple(NodeAlignment(n, b, e, e, 0.0, b, e) for n, b, e in zip(TREE, best, exact))
    return PowerCLIPEvidence(TREE, regions, cells, (0, 0, SIZE, SIZE), alignments, 3, 0.001, 0.001)


def lit_cells(picture: np.ndarray, image: Image.Image, grid: tuple[int, int]) -> np.ndarray:
    """Which cells of the patch grid the map beside the picture shows white: their median pixel over 200."""
    side = display.display_image(image)[0].height
    shown = picture_and_map(picture, side)[1].astype(float).mean(-1)
    h, w = side // grid[0], side // grid[1]
    return np.array([[np.median(shown[r * h:(r + 1) * h, c * w:(c + 1) * w]) > 200 for c in range(grid[1])]
                     for r in range(grid[0])])


def test_subset_overlay_keeps_bright_exactly_the_patches_of_the_node_best_regions(scene):
    ev = powerset_evidence([0.5, 0.4, 0.3, 0.2], [(0, 1), (0,), (2,), (1, 2)])
    for k, alignment in enumerate(ev.alignments):
        picture = np.asarray(powerclip_pictures.subset_overlay(scene, ev, k))
        np.testing.assert_array_equal(lit_cells(picture, scene, (4, 4)), ev.masks[list(alignment.best)].any(0))
        shown = np.asarray(display.display_image(scene)[0])
        kept = picture[:SIZE, 100:300] == shown[:SIZE, 100:300]  # the picture's own colours: not dimmed anywhere
        assert kept.all(-1).mean() > 0.9  # but for the regions' boxes and badges


def test_trees_compared_side_by_side_share_one_colour_range():
    a = powerset_evidence([0.30, 0.45, 0.40, 0.35], [(0,), (0,), (1,), (1,)])
    b = powerset_evidence([0.10, 0.50, 0.20, 0.25], [(0,), (0,), (1,), (1,)])
    scale = viz_tree.tree_range([a, b])
    assert scale == (0.10, 0.50)
    markers = [viz_tree.tree_figure(ev, "caption", 1, scale).data[-1].marker for ev in (a, b)]
    assert [(m.cmin, m.cmax) for m in markers] == [scale, scale]
    alone = viz_tree.tree_figure(a, "caption").data[-1].marker
    assert (alone.cmin, alone.cmax) == (0.30, 0.45)  # one tree alone: its own range


def test_tree_labels_sit_on_plates_below_their_nodes_and_edges_never_cross_them():
    ev = powerset_evidence([0.3, 0.4, 0.5, 0.6], [(0,)] * 4)
    fig = viz_tree.tree_figure(ev, "a red square near a blue circle", 3)
    assert fig.data[-1].mode == "markers"  # the names are plates, not text on the markers' trace
    labels = fig.layout.annotations
    assert [a.text for a in labels] == ["S<br>a red square<br>near a blue<br>circle", "NP<br>a red square",  # narrow:
                                        "PP<br>near a blue<br>circle", "NP<br>a blue circle"]  # neighbours stay apart
    assert all(a.yanchor == "top" and a.yshift == -viz_tree.TREE_LABEL_TOP and a.bgcolor for a in labels)
    plot = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
    per_unit = plot / (fig.layout.yaxis.range[1] - fig.layout.yaxis.range[0])  # the y axis's pixels per unit
    deepest = viz_tree.TREE_LABEL_TOP + 4 * viz_tree.TREE_LINE_PX  # the root's plate: four lines
    depth = [0, 1, 1, 2]
    edges = viz_tree.tree_edges(ev)
    assert len(edges) == 3
    for (_, y0, _, y1), (k, child) in zip(edges, list(enumerate(TREE))[1:]):
        assert (-depth[child.parent] - y0) * per_unit >= deepest  # starts under every plate of its parent's level
        assert y1 > -depth[k]  # ends above the child's centre: its plate lies below that


def test_binding_geometry_is_flat_and_paints_each_object_as_itself():
    labels = ["red circle", "blue square", "yellow triangle", "white star"]
    rng = np.random.default_rng(0)
    observed = rng.normal(size=(4, 3))
    fig = viz.binding_mds_figure(observed, observed + 0.1, labels)
    assert {t.type for t in fig.data} == {"scatter"}  # a flat view: no 3-D labels piling up
    filled = next(t for t in fig.data if t.name.startswith("observed"))
    assert filled.mode == "markers" and list(filled.hovertext) == labels  # named on hover, no text over the points
    paints = ["rgb({}, {}, {})".format(*world.COLORS[c]) for c in ("red", "blue", "yellow", "white")]
    assert list(filled.marker.color) == paints
    assert list(filled.marker.symbol) == ["circle", "square", "triangle-up", "star"]
    assert fig.layout.xaxis.automargin and fig.layout.yaxis.automargin  # ticks and titles never clipped
    assert min(fig.layout.margin.l, fig.layout.margin.b) >= 40


@pytest.fixture(scope="module")
def analyzed(embedded, scene):
    return scene, Engine(embedded).analyze(scene, RIGHT, WRONG)


def test_powerclip_tab_draws_both_trees_on_one_range_and_pictures_numbered_as_its_table(analyzed):
    scene, analysis = analyzed
    tree_a, tree_b, *_ = POWERCLIP["draw_nodes"](analyzed, 0, 0)
    exact = [a.exact for s in analysis.scores["powerclip"] for a in s.evidence.alignments]
    ranges = [(t.data[-1].marker.cmin, t.data[-1].marker.cmax) for t in (tree_a, tree_b)]
    assert ranges == [(min(exact), max(exact))] * 2
    _, table, _, _ = POWERCLIP["show_alignments"](analyzed)
    for which, score in zip("AB", analysis.scores["powerclip"]):
        ev = score.evidence
        named = table[table["caption"] == which]["best regions"]
        for k, cell in enumerate(named):
            regions = [int(r.strip()[1:]) for r in cell.split(",")]
            picture = np.asarray(powerclip_pictures.subset_overlay(scene, ev, k))
            assert tuple(regions) == ev.alignments[k].best
            np.testing.assert_array_equal(lit_cells(picture, scene, ev.masks.shape[1:]), ev.masks[regions].any(0))


def test_tflocal_tab_draws_a_and_b_on_one_scale_with_its_bar(analyzed):
    *maps, problem = TFLOCAL["draw_heatmaps"](analyzed, [1], [5], "mean", "mean")  # "red" in A and in B
    a, b = (np.asarray(m) for m in maps)
    side = display.DISPLAY_SIDE
    assert problem == "" and a.shape == b.shape and a.shape[1] == 2 * side + marks.BESIDE_GAP and a.shape[0] > side
    np.testing.assert_array_equal(a[side:], b[side:])  # one bar, one set of ticks: one scale
