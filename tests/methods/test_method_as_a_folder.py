"""A new method is a folder: a tiny "best patch" method written by this test as ``explorer/methods/patchbest/`` (its
scoring, evidence, map per segment, pictures and step of the tour in its ``__init__.py``), found by the registry's
discovery and gone afterwards, is in the score table, Browse's verdicts, ``eval``, the "Where the model looks" tab's
map sources (with its own map), the downloaded report, the tour's list and the notebook's ``figures()``, with no
other file touched."""

import hashlib
import importlib
import shutil
import sys
from pathlib import Path
from unittest import mock

import numpy as np
import plotly.graph_objects as go
import pytest
from PIL import Image

from explorer import world
from explorer.engine import Engine, report
from explorer.eval import accuracy, browse
from explorer.explain import looks, sources
from explorer.language.text import segments
from explorer.methods import REGISTRY, discover, page_methods, tour_steps

NAME, LABEL = "patchbest", "best patch"
RIGHT, WRONG = "a red square and a blue circle", "a blue square and a red circle"
METHODS = Path(__file__).resolve().parents[2] / "explorer" / "methods"
FOLDER = '''"""The best patch: each caption segment's best patch cosine, averaged."""

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from PIL import Image

from explorer.language.text import segments
from explorer.methods import FigureInfo, MethodInfo, Score, ScoringMethod, SegmentMap, register
from explorer.methods.results import peak
from explorer.world.tour import Step


@dataclass(frozen=True)
class PatchEvidence:
    grids: dict  # a segment's character span -> its (h, w) cosines
    best: dict  # a segment's character span -> its best cosine


class PatchBest(ScoringMethod):
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
    return {chars: peak(np.asarray(Image.fromarray(np.clip(grid, 0, None).astype(np.float32)).resize(image.size)))
            for chars, grid in evidence.grids.items()}


def best_patches(scores, image):
    return [Image.fromarray((255 * np.clip(next(iter(s.evidence.grids.values())), 0, 1)).astype(np.uint8))
            for s in scores]


def segment_bars(scores, image):
    return go.Figure([go.Bar(x=list(map(str, s.evidence.best)), y=list(s.evidence.best.values()), name=s.caption)
                      for s in scores])


register(MethodInfo(
    "patchbest", "best patch", "each segment's best patch cosine, averaged", "-1 to 1", page_order=99,
    segment_map=SegmentMap(patch_maps, "the best patch's cosines", "cosine with the segment, per patch",
                           "Beside each picture, white where the segment's cosine with a patch is highest."),
    figures=(FigureInfo("patchbest grid", "the first segment's patch cosines", "cosine, 0 to 1", best_patches,
                        per_caption=True),
             FigureInfo("patchbest bars", "each segment's best patch cosine", "cosine", segment_bars)),
    tour=Step("The best patch looks at one patch a segment", "main", "Each segment takes its best patch."),
    intro="the best patch per phrase"))(PatchBest)
'''


def sources_of_explorer() -> dict[str, str]:
    """Every file of explorer/ by its path, with its content's hash."""
    root = METHODS.parent
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*.py")) if "__pycache__" not in p.parts}


@pytest.fixture(scope="module")
def added():
    """The folder written and discovered (then removed from the disk at once: nothing else imports it), and the
    registry as it was afterwards."""
    before, folder = sources_of_explorer(), METHODS / NAME
    with mock.patch.dict(REGISTRY):
        try:
            folder.mkdir()
            (folder / "__init__.py").write_text(FOLDER)
            importlib.invalidate_caches()
            discover()
            after = sources_of_explorer()
        finally:
            shutil.rmtree(folder)
        assert set(after) - set(before) == {f"methods/{NAME}/__init__.py"}
        assert {k: v for k, v in after.items() if k in before} == before  # no other file touched
        yield REGISTRY[NAME]
    sys.modules.pop(f"explorer.methods.{NAME}", None)
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
    assert (added.info.segment_map.label, NAME) in looks.source_menu() and NAME in sources.method_sources()
    shown = looks.looks(engine.encoder, analysis.state, analysis.captions, analysis.scores, "rollout", 0, NAME)
    chars = segments(RIGHT)[0].chars
    read = sys.modules[f"explorer.methods.{NAME}"].patch_maps
    want = read(engine.encoder, image, RIGHT, analysis.scores[NAME][0].evidence)[chars]
    assert np.array_equal(shown.panels[0].map, want.map) and shown.panels[0].point == want.point
    assert (shown.scale_title, shown.reading, shown.notes) == (added.info.segment_map.scale_title,
                                                               added.info.segment_map.reading, ())
    note, _, _, fig_a, fig_b, _, reading = looks_tab.draw(engine, path, RIGHT, WRONG, engine.default_choice,
                                                          (image, analysis), "rollout", 0, NAME)
    assert "not available" not in note and added.info.segment_map.reading in reading
    assert all(not f.layout.annotations and any(t.name == "where it points" for t in f.data) for f in (fig_a, fig_b))
    whole = looks.looks(engine.encoder, analysis.state, analysis.captions, analysis.scores, "rollout", looks.WHOLE, NAME)
    assert all(f"{LABEL} reads the caption by segments" in p.missing for p in whole.panels)


def test_the_page_offers_it_in_the_maps_tab_the_tour_and_the_introduction(added, compared):
    from explorer.ui.app import build_app
    from explorer.ui.serving import Serving

    demo = build_app(compared[0], Serving(heavy_concurrency=1, light_concurrency=1, queue_size=4, time_limit_s=60))
    props = {c["props"].get("elem_id"): c["props"] for c in demo.config["components"]}
    assert [added.info.segment_map.label, NAME] in [list(choice) for choice in props["looks-source"]["choices"]]
    title = f"{len(tour_steps()) - 1}. The best patch looks at one patch a segment"  # before the image side's step
    assert [s.title for s in tour_steps()][-2] == title
    assert title in [choice[0] for choice in props["tour-step"]["choices"]]
    assert props["intro"]["value"].rstrip().endswith("and the best patch per phrase.")


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


def test_every_methods_maps_and_figures_are_functions():
    for cls in REGISTRY.values():
        hooks = [f.draw for f in cls.info.figures] + ([cls.info.segment_map.read] if cls.info.segment_map else [])
        assert all(callable(hook) for hook in hooks), cls.name
        assert len({f.name for f in cls.info.figures}) == len(cls.info.figures)
    assert {"sgi", "tflocal", "powerclip"} <= set(sources.method_sources())
