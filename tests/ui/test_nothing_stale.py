"""Nothing on the page outlives its picture: every panel drawn from the uploaded picture (or from the comparison of
it) is cleared or drawn again when the picture changes, the proposals' list included."""

import pytest
from test_live_rescore import handler

from explorer import world
from explorer.engine import Engine
from explorer.ui.app import build_app

INPUTS = {"upload", "caption-a", "caption-b", "pad", "model", "Tabs"}  # what the user gives, never derived


@pytest.fixture(scope="module")
def demo(embedded):
    return build_app(Engine(embedded))


def named(block) -> str:
    return getattr(block, "elem_id", None) or f"{type(block).__name__}#{block._id}"


def redrawn_on_change(demo, source: str) -> set[str]:
    """Every component written, directly or down a chain of events, once ``source`` changes: handlers triggered by a
    change of it or of what they wrote, and those run after them (``then``)."""
    fns = list(demo.fns.values())
    written, ran = {source}, set()
    grew = True
    while grew:
        grew = False
        for f in fns:
            triggered = any(t[0] in demo.blocks and named(demo.blocks[t[0]]) in written and t[1] == "change"
                            for t in f.targets) or (f.trigger_after is not None and f.trigger_after in ran)
            if triggered and f._id not in ran:
                ran.add(f._id)
                written |= {named(c) for c in f.outputs}
                grew = True
    return written


def test_every_panel_drawn_from_the_picture_is_drawn_again_or_cleared_when_it_changes(demo):
    """Shown panels only (a State is not seen); drawn of the picture: by a handler that reads it and does not give it
    (the pad's drawing gives the picture and says so beside the pad)."""
    derived = {named(c) for f in demo.fns.values() if "upload" in {named(i) for i in f.inputs}
               and "upload" not in {named(o) for o in f.outputs} for c in f.outputs if type(c).__name__ != "State"}
    derived -= INPUTS
    assert "proposal" in derived and "heatmap" in derived and "two-by-two" in derived  # the walk reads the page
    redrawn = redrawn_on_change(demo, "upload")
    assert derived - redrawn == set()


def test_the_proposal_is_cleared_when_the_picture_or_model_changes_or_a_vismin_item_is_scored(demo, tmp_path):
    path = tmp_path / "scene.png"
    world.Scene((world.WorldObject("red", "square", "large", 0.27, 0.3),
                 world.WorldObject("blue", "circle", "large", 0.72, 0.7))).render(128).save(path)
    choice = next(c for c in demo.blocks.values() if named(c) == "model").value
    a, b, said, found, made = handler(demo, "propose_captions")(str(path), "", "", choice)
    assert said.startswith("Seen by") and made == (str(path), choice)
    clear = handler(demo, "clear_proposal")
    assert clear(str(path), choice, made) == ({"__type__": "update"},) * 3  # the same picture and model: it stays
    for path_now, model_now in ((None, choice), (str(tmp_path / "other.png"), choice), (str(path), "another")):
        assert clear(path_now, model_now, made) == ("", None, None)  # cleared: removed, another picture, a model
    scored = [f for f in demo.fns.values() if any(named(demo.blocks[t[0]]) == "pair-score" for t in f.targets
                                                  if t[0] in demo.blocks)]
    assert any("proposal" in {named(c) for c in f.outputs} and f.fn() == ("", None, None) for f in scored)
