"""The page's caption edit (the follow handler gradio calls on each change): what it sends again, and what it keeps."""

import asyncio
import dataclasses
import inspect
import io

import gradio as gr
import pytest
from gradio import processing_utils
from PIL import Image

from explorer import world
from explorer.engine import Engine
from explorer.ui import quick_webp
from explorer.ui.app import build_app

RIGHT, WRONG = "a red square and a blue circle", "a blue square and a red circle"


def handler(demo: gr.Blocks, name: str):
    """The page's handler called ``name``, callable as gradio calls it (a time-limited one is a coroutine)."""
    fn = next(f.fn for f in demo.fns.values() if f.name == name)
    return (lambda *args: asyncio.run(fn(*args))) if inspect.iscoroutinefunction(fn) else fn


@pytest.fixture(scope="module")
def page(embedded, tmp_path_factory):
    path = tmp_path_factory.mktemp("upload") / "scene.png"
    world.Scene((world.WorldObject("red", "square", "large", 0.27, 0.3),
                 world.WorldObject("blue", "circle", "large", 0.72, 0.7))).render(128).save(path)
    engine = Engine(embedded)
    return build_app(engine), str(path), engine.default_choice


def webp_bytes(image, **options) -> bytes:
    """``image`` as gradio encodes it for the browser, or with Pillow's WebP ``options`` when given."""
    if not options:
        return processing_utils.encode_pil_to_bytes(image, "webp")
    plain = image.copy()  # a copy has no writer options set on it
    with io.BytesIO() as out:
        plain.save(out, "webp", **options)
        return out.getvalue()


def test_pictures_go_to_the_browser_at_the_fastest_webp_effort():
    image = world.Scene((world.WorldObject("red", "square", "large", 0.3, 0.3),)).render(128).resize((448, 448))
    default = webp_bytes(image)
    assert quick_webp.quick_webp(image) is image and quick_webp.quick_webp(None) is None
    assert webp_bytes(image) == webp_bytes(image, method=quick_webp.WEBP_METHOD) != default


def sent(value) -> bool:
    """Whether an output is sent to the browser (a ``gr.update()`` with nothing in it leaves the component as is)."""
    return not (isinstance(value, dict) and value.get("__type__") == "update" and len(value) == 1)


def test_an_edit_sends_the_table_and_the_edited_captions_overlay_only(page):
    demo, path, choice = page
    status, shown, table, overlay_a, overlay_b, heat, result, following = handler(demo, "analyze")(path, RIGHT, WRONG,
                                                                                                    choice)
    assert status.startswith("Done") and all(map(sent, (shown, overlay_a, overlay_b, heat)))
    edited = WRONG + " on a grey floor"
    out = handler(demo, "follow")(path, RIGHT, edited, choice, result, True)
    status, shown, table, overlay_a, overlay_b, heat, after = out
    assert status.startswith("Done") and after[1].captions == (RIGHT, edited)
    assert after[0] is result[0]  # the image decoded once for the comparison and its edits
    assert not sent(shown) and not sent(overlay_a)  # unchanged on the page: caption A and the image
    assert sent(overlay_b) and sent(heat) and sent(table)
    assert webp_bytes(overlay_b) == webp_bytes(overlay_b, method=quick_webp.WEBP_METHOD)  # at the fastest effort
    assert after[1].scores["sgi"][0] == result[1].scores["sgi"][0]  # caption A's evidence is what its overlay shows
    assert after[1].scores["sgi"][1].caption == edited

    out = handler(demo, "follow")(path, RIGHT + " on a grey floor", edited, choice, after, True)
    assert sent(out[3]) and not sent(out[4])  # now caption A was edited, B was not
    assert handler(demo, "analyze")(path, RIGHT, edited, choice)[1] is not None  # the button sends everything


def test_an_edit_on_another_image_or_model_sends_everything(page):
    demo, path, choice = page
    result = handler(demo, "analyze")(path, RIGHT, WRONG, choice)[-2]
    other = world.Scene((world.WorldObject("green", "star", "large", 0.3, 0.3),)).render(128)
    moved = (other, result[1])  # the page showed another image (a new upload since)
    out = handler(demo, "follow")(path, RIGHT, WRONG + " on a grey floor", choice, moved, True)
    assert all(map(sent, out[1:6]))
    relabelled = (result[0], dataclasses.replace(result[1], model="another model"))  # the page's model was switched
    out = handler(demo, "follow")(path, RIGHT, WRONG + " on a grey floor", choice, relabelled, True)
    assert all(map(sent, out[1:6]))


def test_the_method_tabs_draw_for_a_new_comparison_only_while_in_view(page):
    demo, path, choice = page
    result = handler(demo, "analyze")(path, RIGHT, WRONG, choice)[-2]
    gated = {f.name: f.fn for f in demo.fns.values() if f.fn and f.fn.__qualname__.startswith("while_shown")}
    assert set(gated) == {"show_scores", "draw_heatmaps", "show_alignments", "draw_nodes", "draw_looks"}
    calls = {"show_scores": (result,), "draw_heatmaps": (result, [], [], "mean", "mean"),
             "show_alignments": (result,), "draw_nodes": (result, 0, 0),
             "draw_looks": (path, RIGHT, WRONG, choice, result, None, None, "explainer")}
    tab_of = {"show_scores": "tflocal", "draw_heatmaps": "tflocal", "show_alignments": "powerclip", "draw_nodes": "powerclip",
              "draw_looks": "looks"}
    for name, fn in gated.items():
        assert not any(map(sent, fn(*calls[name], "main")))  # a caption edit on the main tab draws nothing here
        drawn = fn(*calls[name], tab_of[name])
        assert all(map(sent, drawn[:2])), name
    note = gated["show_scores"](result, "tflocal")[0]
    assert RIGHT in note and WRONG in note


def test_a_page_edit_hashes_its_image_once(page, monkeypatch):
    """The engine's caches and the overlay's display copy read one key of the image (a photo's hash takes ms)."""
    demo, path, choice = page
    result = handler(demo, "analyze")(path, RIGHT, WRONG, choice)[-2]
    hashed = []
    tobytes = Image.Image.tobytes
    monkeypatch.setattr(Image.Image, "tobytes", lambda self, *a, **k: hashed.append(self) or tobytes(self, *a, **k))
    out = handler(demo, "follow")(path, RIGHT, WRONG + " by a red wall", choice, result, True)
    assert sent(out[4])  # the edited caption's overlay was drawn, on the image's display copy
    assert sum(im is result[0] for im in hashed) == 1


def test_a_change_that_cannot_be_compared_clears_every_result(page):
    """No result stays on the page under inputs it was not computed from: a removed image, an emptied caption or
    captions the engine refuses clear the table, both overlays, the heat map and the kept comparison."""
    demo, path, choice = page
    result = handler(demo, "analyze")(path, RIGHT, WRONG, choice)[-2]
    follow = handler(demo, "follow")
    for inputs, said in (((None, RIGHT, WRONG), "image was removed"), ((path, RIGHT, "  "), "Caption B is empty"),
                         ((path, RIGHT, "x" * 5000), "longer than"), ((path, RIGHT, RIGHT), "are the same")):
        status, shown, table, overlay_a, overlay_b, heat, last = follow(*inputs, choice, result, True)
        assert said in status and table.empty and (overlay_a, overlay_b, heat, last) == (None,) * 4, inputs
    assert not any(map(sent, follow(path, RIGHT, WRONG + " on a grey floor", choice, None, False)))  # not compared yet
    status, *_, again = follow(path, RIGHT, WRONG, choice, None, True)  # a caption filled in again after a clear
    assert status.startswith("Done") and again[1].captions == (RIGHT, WRONG)


def test_a_model_load_scores_the_comparison_again_unless_the_model_shown_stayed(page):
    demo, path, choice = page
    result = handler(demo, "analyze")(path, RIGHT, WRONG, choice)[-2]
    after_load = handler(demo, "follow_model")
    assert not any(map(sent, after_load(path, RIGHT, WRONG, choice, result, True)))  # a failed load: its message stays
    shown_by_another = (result[0], dataclasses.replace(result[1], model="another model"))
    status, *_, last = after_load(path, RIGHT, WRONG, choice, shown_by_another, True)
    assert status.startswith("Done") and last[1].model == result[1].model


def test_a_download_pressed_right_after_an_edit_makes_no_file_and_says_so(page):
    """Download pressed before the edit was scored again sent the kept comparison and "ready to download below",
    and then the new comparison cleared the file: the note and the files now agree, and a new comparison clears
    both together."""
    demo, path, choice = page
    result = handler(demo, "analyze")(path, RIGHT, WRONG, choice)[-2]
    take_away = handler(demo, "take_away")
    for stale in ((path, RIGHT, WRONG + " on a grey floor"), (None, RIGHT, WRONG), (path, RIGHT, "")):
        files, note = take_away(*stale, choice, result)
        assert files is None and "out of date" in note and "ready" not in note.lower(), stale
    files, note = take_away(path, RIGHT, f"  {WRONG} ", choice, result)  # the captions as the engine reads them
    assert len(files) == 2 and note.startswith("Ready to download below") and WRONG in note
    clears = [[o.elem_id for o in dep.outputs] for dep in demo.fns.values()
              if "report-files" in [o.elem_id for o in dep.outputs] and dep.name != "take_away"]
    assert clears == [["report-files", "report-note"]]


NOTHING = object()


async def _through_gradio(demo, state, frontend: dict, name: str, kept=NOTHING):
    """The tab-select handler called ``name`` run as gradio runs it: its inputs read from the session ``state`` (the
    page's comparison, ``kept`` when given) and the browser's values ``frontend`` and checked as gradio checks them
    (a menu's value must be among its choices), its outputs sent and applied to ``frontend``; its outputs."""
    fn = next(f for f in demo.fns.values() if f.fn and f.fn.__qualname__ == name)  # as the tab's select runs it
    if kept is not NOTHING:
        state[fn.inputs[0]._id] = kept
    args = await demo.preprocess_data(fn, [frontend.get(b.elem_id) for b in fn.inputs], state)
    sent = await demo.postprocess_data(fn, fn.fn(*args), state)
    for block, value in zip(fn.outputs, sent):
        if not (isinstance(value, dict) and value.get("__type__") == "update"):
            frontend[block.elem_id] = value
        elif "value" in value:
            frontend[block.elem_id] = value["value"]
    return sent


@pytest.mark.parametrize("tab, show, draw, menus", [
    ("PowerCLIP", "show_alignments", "draw_nodes", ("node-a", "node-b")),
    ("TFLocal", "show_scores", "draw_heatmaps", ("tokens-a", "tokens-b"))])
def test_a_method_tab_opened_after_the_results_were_cleared_is_empty_and_quiet(page, tab, show, draw, menus):
    """A comparison drawn on the tab, then caption A deleted (the results cleared), then the tab opened again: it said
    "Value: 0 is not in the list of choices: []" with four red badges, as caption B's menu kept its old value."""
    from gradio.state_holder import SessionState

    demo, path, choice = page
    result = handler(demo, "analyze")(path, RIGHT, WRONG, choice)[-2]
    state, frontend = SessionState(demo), {None: "mean"}  # TFLocal's layer and head menus (no elem_id): the mean
    asyncio.run(_through_gradio(demo, state, frontend, show, kept=result))
    frontend.update({m: [1] for m in menus if m.startswith("tokens")})  # a token ticked on each side
    asyncio.run(_through_gradio(demo, state, frontend, draw))
    asyncio.run(_through_gradio(demo, state, frontend, show, kept=None))  # the page's results cleared
    assert [frontend[m] for m in menus] in ([None, None], [[], []]), tab
    *drawn, note = asyncio.run(_through_gradio(demo, state, frontend, draw))
    assert all(d is None for d in drawn) and note == "", tab


def test_a_tour_step_says_what_its_examples_comparison_shows_once_the_page_has_it(page):
    """The tour's SGI step: its numbers wait for the page's comparison of its example, then come from it."""
    from explorer.methods import tour_steps
    from explorer.world.examples import examples
    from explorer.world.tour import EXAMPLE, PENDING

    demo, path, choice = page
    example = next(e for e in examples() if e.name == EXAMPLE)
    step = next(s for s in tour_steps() if s.title.startswith("3."))
    other = handler(demo, "analyze")(path, RIGHT, WRONG, choice)[-2]  # the same captions on another picture
    assert handler(demo, "go")(step.title, other)[-1].endswith(PENDING)
    result = handler(demo, "analyze")(str(example.path), example.caption_a, example.caption_b, choice)[-2]
    said = handler(demo, "restate")(step.title, result)
    a, b = (s.value for s in result[1].scores["sgi"])
    assert said.startswith(f"**{step.title}.**") and f"prefers A ({a:.3f} against {b:.3f})" in said and a > b
    assert handler(demo, "restate")(step.title, other).endswith(PENDING)


def test_the_image_side_step_says_what_the_pages_2x2_of_its_example_shows(page):
    """The tour's image-side step waits for the page's 2 x 2 of its example, then says that 2 x 2's numbers."""
    from explorer.methods import tour_steps
    from explorer.world.examples import examples
    from explorer.world.tour import EXAMPLE

    demo, path, choice = page
    example = next(e for e in examples() if e.name == EXAMPLE)
    step = next(s for s in tour_steps() if s.needs == "swap")
    result = handler(demo, "analyze")(str(example.path), example.caption_a, example.caption_b, choice)[-2]
    assert handler(demo, "restate")(step.title, result, None, None).endswith("has run on it.*")
    *_, made, swapped = handler(demo, "make_b")(str(example.path), example.caption_a, example.caption_b, choice,
                                                result, "whole")
    assert made == (str(example.path), example.caption_a, example.caption_b, choice)
    assert swapped.analysis_a is result[1]
    cleared = handler(demo, "clear_moved_on")(str(example.path), example.caption_a, example.caption_b, "another",
                                              made)
    assert cleared[-1] is None and cleared[-2] is None  # another model: the 2 x 2 of this one goes
    assert handler(demo, "clear_moved_on")(str(example.path), example.caption_a, example.caption_b, choice,
                                           made)[-1] == gr.update()  # the same inputs and model: kept
    said = handler(demo, "restate")(step.title, result, None, swapped)
    (aa, ba), (ab, bb) = ((s.value for s in side.scores["global"]) for side in (result[1], swapped.analysis_b))
    assert f"caption A {aa:.3f} on image A and {ab:.3f} on image B, caption B {ba:.3f} and {bb:.3f}" in said


def test_a_change_while_a_2x2_is_made_stops_it_and_a_late_one_clears_nothing_new(page):
    """A change of the inputs that arrives while nothing is shown (a 2 x 2 being made as the proposal's captions land)
    leaves the 2 x 2 about to land alone; a change while one is made stops it (its event cancelled), and a change after
    a 2 x 2 or message of no inputs (a benchmark item's) clears it."""
    from explorer.ui.pair_panel import SHOWN

    demo, path, choice = page
    clear = handler(demo, "clear_moved_on")
    assert clear(path, "a", "b", choice, None) == (gr.update(),) * 8  # nothing shown: nothing to clear
    assert clear(path, "a", "b", choice, SHOWN)[0] == ""  # an item's 2 x 2: any change of the page clears it
    making = {f._id for f in demo.fns.values() if f.name in ("make_b", "show_pair")}
    assert len(making) == 2
    stopped_by = [f for f in demo.fns.values() if f.is_cancel_function and making <= set(f.cancels)]
    triggers = {(demo.blocks[block].elem_id, event) for f in stopped_by for block, event in f.targets}
    assert {("upload", "change"), ("caption-a", "change"), ("caption-b", "change")} <= triggers, triggers
