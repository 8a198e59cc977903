"""The Compare tab's 2 x 2 of a VisMin item's own two pictures: picked on the page, both pictures scored with both
captions by every method, each method's four scores shown, the global cosine's equal to the evaluation's."""

import re
import sys
import zipfile
from pathlib import Path

import pytest
from gradio_client import Client, handle_file

from explorer.core import settings
from explorer.core.data_roots import DataAccess
from explorer.eval.accuracy import similarities
from explorer.images.fit import view_state
from explorer.methods import get_method
from explorer.ui.pair_panel import pair_captions, vismin_item, world_vismin_item
from tests.app_server import running_app
from tests.ui.user_words import said_in_words  # noqa: F401 (the fixture, used by every test here)

pytestmark = pytest.mark.usefixtures("said_in_words")  # every message read for what a user cannot act on


@pytest.fixture(scope="module")
def client(embedded):
    with running_app(embedded) as url:
        yield Client(url, verbose=False)


def four(cosines_html: str, label: str) -> dict[str, float]:
    """One method's grid read back from the page: caption c on image i, keyed "AB" (caption A on image B)."""
    grid = cosines_html.split(f"<strong>{label}</strong>")[1].split("</figure>")[0]
    return {cell: float(value) for cell, value in re.findall(r'data-cell="([AB][AB])">(-?\d+\.\d{4})', grid)}


def test_the_compare_tab_shows_a_vismin_item_s_2x2_and_its_four_cosines(client, embedded):
    note, image_a, image_b, table, cosines, files = client.predict("attribute", 1, None, "", api_name="/pair_two_by_two")
    item = world_vismin_item("attribute", 1)
    a, b = pair_captions(item)
    assert note.startswith("VisMin on the world, attribute item 1") and a in note and b in note, note
    assert image_a and image_b and any(f.endswith(".json") for f in files)
    labels = [row[0] for row in table["data"]]
    assert labels[:2] == ["global cosine", "SGI"] and all(len(four(cosines, label)) == 4 for label in labels)
    shown = four(cosines, "global cosine")
    view = settings.current().view  # the page's view: the world's pictures are read in the setting's
    own = similarities(get_method("global", embedded), [view_state(im, view) for im in item.pictures()],
                       [a, b])  # the evaluation's path: caption c (A, B) on image i (0, 1)
    assert shown == pytest.approx({f"{c}{i}": round(float(own[ci, ii]), 4) for ci, c in enumerate("AB")
                                   for ii, i in enumerate("AB")}, abs=1.5e-4)
    verdicts = dict(zip(table["headers"], next(r for r in table["data"] if r[0] == "global cosine")))
    text = own[0, 0] > own[1, 0] and own[1, 1] > own[0, 1]
    image = own[0, 0] > own[0, 1] and own[1, 1] > own[1, 0]
    assert (verdicts["text"], verdicts["image"], verdicts["group"]) == tuple(
        "\u2713 yes" if v else "\u2717 no" for v in (text, image, text and image))


def test_a_number_out_of_range_is_refused_in_a_sentence(client):
    said = client.predict("counting", 500, None, "", api_name="/pair_two_by_two")[0]
    assert "The item's number must be a whole number from 0 to 199; got 500" in said


def test_an_uploaded_vismin_folder_s_item_shows_its_2x2_read_as_its_authors_read_it(client, embedded, tmp_path):
    """VisMin's own files (the hub's parquet as its authors keep it today) zipped as a user uploads them: the item's
    own two pictures, each caption beside its own picture (caption i image i's), scored in the authors' view."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "eval"))
    from minimal_pair_fixtures import vismin

    root = vismin(tmp_path / "vismin-bench", n=2)
    archive = tmp_path / "vismin-bench.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for f in root.rglob("*"):
            z.write(f, f.relative_to(tmp_path))
    item = vismin_item(root, "counting", 1, DataAccess())
    a, b = pair_captions(item)
    assert item.info["view"] == "raw" and (a, b) == item.captions  # today's rows: caption i is image i's
    note, _, _, table, cosines, _ = client.predict("counting", 1, handle_file(str(archive)), "",
                                                   api_name="/pair_two_by_two")
    assert note.startswith("VisMin's counting item 1") and "as VisMin's authors read it" in note, note
    own = similarities(get_method("global", embedded), [view_state(im, "raw") for im in item.pictures()], [a, b])
    assert four(cosines, "global cosine") == pytest.approx(
        {f"{c}{i}": round(float(own[ci, ii]), 4) for ci, c in enumerate("AB") for ii, i in enumerate("AB")},
        abs=1.5e-4)
    said = client.predict("spatial", 0, handle_file(str(archive)), "", api_name="/pair_two_by_two")[0]
    assert "no item 0; they hold: object (2), attribute (2), relation (2), counting (2)" in said, said
    assert str(tmp_path) not in said
