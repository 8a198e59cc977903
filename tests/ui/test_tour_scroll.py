"""The tour scrolls to what each step points at: every step's target is an element of the page."""

from explorer.engine import Engine
from explorer.methods import tour_steps
from explorer.ui.app import build_app
from explorer.ui.tour import target


def test_every_tour_step_points_at_an_element_of_the_page(embedded):
    demo = build_app(Engine(embedded))
    ids = {getattr(block, "elem_id", None) for block in demo.blocks.values()}
    for step in tour_steps():
        found = target(step)
        assert found and set(found.split(">")) <= ids, (step.title, found)
    assert [target(s) for s in tour_steps() if "image side" in s.title] == ["draw-and-swap>make-b"]
