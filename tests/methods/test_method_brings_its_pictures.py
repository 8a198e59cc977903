"""A method brings its own pictures: one written in this file alone, registered here with ``register(MethodInfo(...))``
and gone afterwards, with its per-segment map and its figures, is in the score table, Browse's verdicts, ``eval``,
the "Where the model looks" tab's map sources (with its own map), the downloaded report and the notebook's
``figures()``, with no other file touched."""

from dataclasses import dataclass
from unittest import mock

import numpy as np
import plotly.graph_objects as go
import pytest
from PIL import Image

from explorer import world
from explorer.engine import Engine, report
from explorer.eval import accuracy, browse
from explorer.explain import sources, view
from explorer.language.text import segments
from explorer.methods import REGISTRY, FigureInfo, MethodInfo, Score, ScoringMethod, SegmentMap, page_methods, register
from explorer.methods.base import peak

NAME, LABEL = "patchbest", "best patch"
RIGHT, WRONG = "a red square and a blue circle", "a blue square and a red circle"


@dataclass(frozen=True)
class PatchEvidence:
    """Each segment's cosine with every patch, as the patch grid."""

    grids: dict[tuple[int, int], np.ndarray]  # a segment's character span -> its (h, w) cosines
    best: dict[tuple[int, int], float]


class PatchBest(ScoringMethod):
    """Each segment's best patch cosine, averaged: the simplest method with a map per segment."""

    def score_new(self, state, captions):
        image = self.encoder.encode_image(state)
        out = []
        for caption in captions:
            found = segments(caption)
            texts = self.encoder.encode_texts([s.text for s in found], companions=False)
            grids = {s.chars: (image.patches @ t.embedding).reshape(image.grid).numpy() for s, t in zip(found, texts)}
            best = {chars: float(grid.max()) for chars, grid in grids.items()}
            out.append(Score(self.name, caption, float(np.mean(list(best.values()))), PatchEvidence(grids, best)))
        return out


def patch_maps(encoder, image, caption, evidence):
    """Each segment's patch cosines over the whole image (>= 0), pointing at its best patch."""
    return {chars: peak(np.asarray(Image.fromarray(np.clip(grid, 0, None).astype(np.float32)).resize(image.size)))
            for chars, grid in evidence.grids.items()}


def best_patches(scores, image):
    """Per caption: its first segment's patch cosines, as a grey picture."""
    return [Image.fromarray((255 * np.clip(next(iter(s.evidence.grids.values())), 0, 1)).astype(np.uint8))
            for s in scores]


def segment_bars(scores, image):
    """Both captions' segments' best cosines, as bars."""
    return go.Figure([go.Bar(x=list(map(str, s.evidence.best)), y=list(s.evidence.best.values()), name=s.caption)
                      for s in scores])


INFO = MethodInfo(
    NAME, LABEL, "each segment's best patch cosine, averaged", "-1 to 1", page_order=99,
    segment_map=SegmentMap(patch_maps, "the best patch's cosines", "cosine with the segment, per patch",
                           "Beside each picture, white where the segment's cosine with a patch is highest."),
    figures=(FigureInfo("patchbest grid", "the first segment's patch cosines", "cosine, 0 to 1", best_patches,
                        per_caption=True),
             FigureInfo("patchbest bars", "each segment's best patch cosine", "cosine", segment_bars)))


@pytest.fixture(scope="module")
def added():
    """The method registered for this module's tests, and the registry as it was afterwards."""
    with mock.patch.dict(REGISTRY):
        register(INFO)(PatchBest)
        yield PatchBest
    assert NAME not in REGISTRY and NAME not in page_methods() and NAME not in sources.method_sources()


@pytest.fixture(scope="module")
def compared(added, embedded, tmp_path_factory):
    """The page's engine (its default methods, the registry's page methods), a world scene's file and the
    comparison of RIGHT and WRONG on it."""
    from explorer.images.inputs import read_image_kept

    engine = Engine(embedded)
    path = tmp_path_factory.mktemp("patchbest") / "scene.png"
    world.Scene((world.WorldObject("red", "square", "large", 0.27, 0.3),
                 world.WorldObject("blue", "circle", "large", 0.72, 0.7))).render(128).save(path)
    image, _ = read_image_kept(path)
    return engine, str(path), image, engine.analyze(image, RIGHT, WRONG)


def test_it_is_in_the_score_table_browse_and_eval(added, compared):
    engine, _, _, analysis = compared
    assert page_methods()[-1] == NAME and NAME in engine.methods
    a, b = analysis.scores[NAME]
    assert a.value == pytest.approx(np.mean(list(a.evidence.best.values())))
    row = analysis.table().set_index("method").loc[LABEL]
    assert (row["A"], row["B"]) == (round(a.value, 4), round(b.value, 4))

    item = world.swap_items("id", "attribute", 1)[0]
    reading = browse.read(engine.methods, item, [im.render(128) for im in item.images])
    assert reading.verdicts[LABEL] in (True, False)
    found = accuracy.evaluate_items([engine.methods[NAME]], [item], "world", render_size=128)
    assert set(found) == {NAME} and found[NAME]


def test_it_is_a_map_source_of_where_the_model_looks_with_its_own_map(added, compared):
    from explorer.ui import looks_tab

    engine, path, image, analysis = compared
    assert (INFO.segment_map.label, NAME) in view.source_menu() and NAME in sources.method_sources()
    shown = view.view(engine.encoder, image, analysis.captions, analysis.scores, "rollout", 0, NAME)
    chars = segments(RIGHT)[0].chars
    want = patch_maps(engine.encoder, image, RIGHT, analysis.scores[NAME][0].evidence)[chars]
    assert np.array_equal(shown.panels[0].map, want.map) and shown.panels[0].point == want.point
    assert (shown.scale_title, shown.reading, shown.notes) == (INFO.segment_map.scale_title,
                                                               INFO.segment_map.reading, ())
    note, _, _, fig_a, fig_b, _, reading = looks_tab.draw(engine, path, RIGHT, WRONG, engine.default_choice,
                                                          (image, analysis), "rollout", 0, NAME)
    assert "not available" not in note and INFO.segment_map.reading in reading
    assert all(not f.layout.annotations and any(t.name == "where it points" for t in f.data) for f in (fig_a, fig_b))
    whole = view.view(engine.encoder, image, analysis.captions, analysis.scores, "rollout", view.WHOLE, NAME)
    assert all(f"{LABEL} reads the caption by segments" in p.missing for p in whole.panels)


def test_the_looks_tab_offers_it_on_the_page(added, compared):
    from explorer.ui.app import build_app
    from explorer.ui.serving import Serving

    demo = build_app(compared[0], Serving(heavy_concurrency=1, light_concurrency=1, queue_size=4, time_limit_s=60))
    [radio] = [c["props"] for c in demo.config["components"] if c["props"].get("elem_id") == "looks-source"]
    assert [INFO.segment_map.label, NAME] in [list(choice) for choice in radio["choices"]]


def test_its_figures_are_in_the_report_and_the_notebooks_figures(added, compared):
    from explorer.api import Result

    _, _, image, analysis = compared
    figures = Result(image, analysis).figures()
    assert list(figures)[-3:] == ["patchbest grid A", "patchbest grid B", "patchbest bars"]
    assert isinstance(figures["patchbest grid A"], Image.Image) and isinstance(figures["patchbest bars"], go.Figure)
    assert {"sgi heatmap", "tflocal A", "powerclip subset B"} <= set(figures)  # the others' stay
    page = report.page(image, analysis)
    assert page.count('<img alt="patchbest grid') == 2 and "<h3>patchbest bars</h3>" in page
    assert "each segment&#x27;s best patch cosine; scale: cosine" in page and f"<td>{LABEL}</td>" in page


def test_every_methods_maps_and_figures_name_functions_that_exist():
    from explorer.methods import resolve

    for cls in REGISTRY.values():
        hooks = [f.draw for f in cls.info.figures] + ([cls.info.segment_map.read] if cls.info.segment_map else [])
        assert all(callable(resolve(hook)) for hook in hooks), cls.name
        assert len({f.name for f in cls.info.figures}) == len(cls.info.figures)
    assert {"sgi", "tflocal", "powerset"} <= set(sources.method_sources())
