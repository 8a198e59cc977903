"""Browse's overview against a second model through the page's API: the same model twice is refused with a message,
another model scores every item under both and the viewer draws both readings."""

import pytest
from gradio_client import Client

from explorer.ui.browse_overview import ONE_MODEL
from tests.app_server import running_app

SECOND = "world-clip-finetune (project checkpoint)"


@pytest.fixture(scope="module")
def client(embedded):
    with running_app(embedded, methods=("global",)) as url:
        yield Client(url, verbose=False)


def test_a_second_model_is_scored_beside_the_first_and_the_same_one_is_refused(client):
    *_, status = client.predict("world", "", 1, api_name="/browse_load")
    assert status == "Loaded 16 items."
    assert "B is the page's model already" in client.predict("world-clip (embedded)", api_name="/overview")[-1]
    said = client.predict(SECOND, api_name="/overview")[-1]
    assert "A: world-clip (embedded)" in said and "B: world-clip @ world-clip-finetune" in said
    assert "Scored 16 items" in client.predict(ONE_MODEL, api_name="/overview")[-1]  # one model again
    image_0, image_1, reading_a, reading_b, details = client.predict(0, SECOND, api_name="/browse_show")
    assert "| method | A: verdict | B: verdict |" in details and "B: world-clip @ world-clip-finetune" in details
    titles = [reading["value"]["plot"] for reading in (reading_a, reading_b)]  # each a plotly figure as JSON
    assert all(reading["visible"] for reading in (reading_a, reading_b))
    assert "A: world-clip (embedded)" in titles[0] and "B: world-clip @" in titles[1]
    *_, none_a, none_b, alone = client.predict(0, ONE_MODEL, api_name="/browse_show")
    assert not none_a["visible"] and not none_b["visible"] and "A: verdict" not in alone
