"""Browse's overview against a second model through the page's API: the same model twice is refused with a message,
another model scores every item under both and the viewer draws both readings, each model named as its menu names it."""

import pytest
from gradio_client import Client

from explorer.ui.browse_overview import ONE_MODEL
from tests.app_server import running_app

SECOND = "world-clip-finetune (project checkpoint)"


@pytest.fixture(scope="module")
def client(embedded):
    with running_app(embedded, methods=("global",)) as url:
        yield Client(url, verbose=False)


def menu_entries(client, elem_id: str) -> list[str]:
    """The entries (their values) of the page's menu ``elem_id``, as the page's own configuration lists them."""
    found = [c["props"] for c in client.config["components"] if c.get("props", {}).get("elem_id") == elem_id]
    assert len(found) == 1, elem_id
    return [choice[1] for choice in found[0]["choices"]]


def test_a_second_model_is_scored_beside_the_first_and_the_same_one_is_refused(client):
    assert SECOND in menu_entries(client, "overview-model-b") and SECOND in menu_entries(client, "model")
    *_, status = client.predict("world", "", 1, api_name="/browse_load")
    assert status == "Loaded 16 items."
    assert "B is the page's model already" in client.predict("world-clip (embedded)", api_name="/overview")[-1]
    said = client.predict(SECOND, api_name="/overview")[-1]
    assert "A: world-clip (embedded)" in said and f"B: {SECOND}" in said  # one name a model: the menu's
    assert "@" not in said and ".safetensors" not in said  # not its weights file's
    assert "Scored 16 items" in client.predict(ONE_MODEL, api_name="/overview")[-1]  # one model again
    image_0, image_1, reading_a, reading_b, details = client.predict(0, SECOND, api_name="/browse_show")
    assert "| method | A: verdict | B: verdict |" in details and f"B: {SECOND}" in details
    titles = [reading["value"]["plot"] for reading in (reading_a, reading_b)]  # each a plotly figure as JSON
    assert all(reading["visible"] for reading in (reading_a, reading_b))
    assert "A: world-clip (embedded)" in titles[0] and f"B: {SECOND}" in titles[1]
    assert not any("@" in said for said in (details, *titles))
    *_, none_a, none_b, alone = client.predict(0, ONE_MODEL, api_name="/browse_show")
    assert not none_a["visible"] and not none_b["visible"] and "A: verdict" not in alone
