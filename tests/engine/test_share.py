"""An analysis as a link: the query names an example or a world item, the captions, the model and the tab; a link
that does not hold is refused by name; an uploaded image makes no link."""

from urllib.parse import parse_qsl

import pytest

from explorer import world
from explorer.engine import share
from explorer.images.inputs import InputError, load_image
from explorer.world.examples import examples

MODELS, TABS = ["world-clip (embedded)", "ViT-B-32 / openai"], ["main", "tflocal", "browse"]


def test_a_link_names_its_example_or_world_item_and_reads_back_the_same(tmp_path):
    example = examples()[0]
    said = share.Shared("a red square", "a blue square", MODELS[0], "tflocal")
    found = share.query(load_image(example.path), said)
    params = dict(parse_qsl(found[1:]))
    assert params == {"example": example.name, "a": "a red square", "b": "a blue square", "model": MODELS[0],
                      "tab": "tflocal"}
    assert share.parse(params, MODELS, TABS) == share.Shared("a red square", "a blue square", MODELS[0], "tflocal",
                                                             example=example.name)
    item = share.parse({"item": "heldout/size/3", "a": "x y", "b": "y x"}, MODELS, TABS)
    path = share.picture_of(item, tmp_path)  # drawn, and remembered: its comparison links to it again
    assert item.tab == "main" and item.model == MODELS[0]
    scene = world.swap_items("heldout", "size", 4)[3].images[0].render(128)
    assert list(load_image(path).getdata()) == list(scene.getdata())
    assert dict(parse_qsl(share.query(load_image(path), item)[1:]))["item"] == "heldout/size/3"
    assert share.query(load_image(path).rotate(90), item) is None  # any other picture: an upload, no link


@pytest.mark.parametrize("params, said", [
    ({"example": "nonesuch", "a": "x", "b": "y"}, "no example called 'nonesuch'"),
    ({"item": "../../etc/passwd", "a": "x", "b": "y"}, "not a world item"),
    ({"item": "id/attribute/99999", "a": "x", "b": "y"}, "not a world item"),
    ({"item": "id/attribute/1", "a": "x", "b": "y", "model": "evil"}, "not in this page's menu"),
    ({"item": "id/attribute/1", "a": "", "b": "y"}, "Caption A is empty"),
])
def test_a_link_that_does_not_hold_is_refused_by_name(params, said):
    with pytest.raises(InputError, match=said):
        share.parse(params, MODELS, TABS)
    assert share.parse({"a": "x"}, MODELS, TABS) is None  # a page opened without a link


def test_a_link_to_powerclips_tab_by_its_former_name_opens_it():
    query = {"example": examples()[0].name, "a": "a b", "b": "b a", "tab": "powerset"}
    assert share.parse(query, MODELS, [*TABS, "powerclip"]).tab == "powerclip"
