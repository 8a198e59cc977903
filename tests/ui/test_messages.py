"""A refusal in the user's words: a VisMin archive whose picture is not an image, or has too many pixels, sent to the
pair panel, is named by its item, never by a decoder's objects (``conftest.said_in_words`` reads every message of
this module, of the upload tests and of the pair panel's)."""

import io
import sys
import zipfile
from pathlib import Path

import pandas as pd
import pytest
from gradio_client import Client, handle_file
from PIL import Image

from tests.app_server import running_app
from tests.ui.user_words import not_in_words, said_in_words  # noqa: F401 (the fixture, used by every test here)

pytestmark = pytest.mark.usefixtures("said_in_words")  # every message read for what a user cannot act on


def test_the_check_finds_what_a_user_cannot_act_on():
    said = ("Something went wrong (DatasetError: test-00000-of-00001.parquet: item 0: cannot identify image file "
            "<_io.BytesIO object at 0x7f67d8a1c9a0>); the server's log has the details.")
    assert not_in_words(said) == ["an object's address", "a Python class name"]
    assert not_in_words("/tmp/explorer-uploads-x1/9f/mine.csv: line 2") == ["a server path"]
    assert not_in_words("mine.csv: line 2: image file mine/a.png not found") == []


@pytest.fixture(scope="module")
def client(embedded):
    with running_app(embedded) as url:
        yield Client(url, verbose=False)


def huge_png() -> bytes:
    """A PNG of 20,000 x 20,000 pixels in a few KB: more than the decoder's guard lets through."""
    out = io.BytesIO()
    Image.new("1", (20_000, 20_000)).save(out, "PNG")
    return out.getvalue()


@pytest.mark.parametrize("picture, said", [
    (lambda: b"not a picture", "item 0: its picture is not an image this app can read (PNG, JPEG, WebP, TIFF, ...)"),
    (huge_png, "item 0: its picture has too many pixels to be read here"),
])
def test_a_bad_picture_in_a_pair_panel_archive_is_named_by_its_item(client, tmp_path, picture, said):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "eval"))
    from minimal_pair_fixtures import vismin

    root = vismin(tmp_path / "vismin-bench", n=1)
    table = root / "data" / "test-00000-of-00001.parquet"
    rows = pd.read_parquet(table)
    rows.at[0, "image_0"] = {"bytes": picture(), "path": None}
    rows.to_parquet(table)
    archive = tmp_path / "vismin-bench.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for f in root.rglob("*"):
            z.write(f, f.relative_to(tmp_path))
    kind = rows.at[0, "category"]
    message = client.predict(kind, 0, handle_file(str(archive)), "", api_name="/pair_two_by_two")[0]
    assert message.startswith("**Cannot run:**") and said in message.replace("\\", ""), message
