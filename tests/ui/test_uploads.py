"""Browse's uploads through gradio_client, as people bring them: bad rows named by the same lines as ``eval`` names
them, a header naming a column twice refused by name, zip bombs refused before they reach the disk, and a large pairs
file that runs over the time limit stops being read (the CPU measured as in ``test_work_ends``)."""

import dataclasses
import math
import os
import re
import time
import zipfile

import pytest
from gradio_client import Client, handle_file

from explorer.core import settings
from explorer.eval import archives
from explorer.eval.pairs import read_pairs
from explorer.ui.serving import Serving
from tests.app_server import running_app
from tests.eval.test_pairs import scenes
from tests.eval.test_pairs_rows import bad_rows_among_good
from tests.ui.test_work_ends import IDLE_CPU, SETTLE_S, WINDOW_S, after_answer, still_running
from tests.ui.user_words import said_in_words  # noqa: F401 (the fixture, used by every test here)

LIMIT_S = 1.0
ON_DISK_MB = 64  # what two bombs may leave on the server's disk, all told
COLOURS = ("red", "green", "blue", "yellow", "purple", "orange")
SHAPES = ("square", "circle", "triangle", "star")

pytestmark = pytest.mark.usefixtures("said_in_words")  # every message read for what a user cannot act on


def unescaped(markdown: str) -> str:
    """The page's status as its words: markdown's escapes removed."""
    return re.sub(r"\\(.)", r"\1", markdown)


def load(client: Client, upload, benchmark: str = "pairs") -> str:
    return client.predict(benchmark, "", 50, handle_file(str(upload)), api_name="/browse_load")[-1]


@pytest.fixture(scope="module")
def client(embedded):
    with running_app(embedded) as url:
        yield Client(url, verbose=False)


def test_browse_names_the_same_bad_lines_as_eval_and_refuses_a_repeated_column(client, tmp_path):
    data, good_lines, _ = bad_rows_among_good(tmp_path)
    with zipfile.ZipFile(tmp_path / "mine.zip", "w") as zf:
        zf.writestr("mine/mine.csv", data)
        for name in {f"s{i}-0.png" for i in range(6)}:
            zf.write(tmp_path / name, f"mine/{name}")
    (tmp_path / "mine.csv").write_bytes(data)
    _, bad = read_pairs(tmp_path / "mine.csv")  # what eval reports as skipped
    status = unescaped(load(client, tmp_path / "mine.zip"))
    assert status.split("  \n") == [f"Loaded {len(good_lines)} items. Left out {len(bad)} rows:", *map(str, bad)]
    (tmp_path / "twice.csv").write_text("image,caption_a,caption_b,caption_b\ns0-0.png,a,b,c\n")
    status = unescaped(load(client, tmp_path / "twice.csv"))
    assert status.startswith("**Cannot load:** twice.csv: the header row names 'caption_b' twice (columns 3 and 4)")


def on_disk(folder) -> int:
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, names in os.walk(folder) for f in names)


def test_two_uploads_of_a_zip_bomb_leave_nothing_on_disk_and_say_why(client, tmp_path):
    """Two archives of a few hundred KB, each unpacking to 256 MiB: refused from their directories, unwritten."""
    for i in range(2):
        bomb = tmp_path / f"bomb{i}.zip"
        with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr("mine/pairs.csv", "image,caption_a,caption_b\n")
            zf.writestr("mine/big.png", bytes([i]) * (256 << 20))
        assert bomb.stat().st_size < 1 << 20
        status = unescaped(load(client, bomb))
        assert status.startswith(f"**Cannot load:** bomb{i}.zip: the archive's 'mine/big.png' unpacks to 256 MiB "
                                 f"from") and "(more than 200: a zip bomb): nothing was unpacked" in status, status
    used = on_disk(archives.STORE.root) if archives.STORE._root is not None else 0
    assert used < ON_DISK_MB << 20 and archives.STORE.used() < ON_DISK_MB << 20


def big_pairs(folder, rows: int) -> bytes:
    """A pairs CSV of ``rows`` rows of varied captions over a few scenes."""
    names = [row[0] for row in scenes(folder, 4)]
    lines = ["image,caption_a,caption_b,category"]
    for i in range(rows):
        a, b = COLOURS[i % 6], COLOURS[(i // 6) % 6]
        s, t = SHAPES[i % 4], SHAPES[(i // 24) % 4]
        lines.append(f"{names[i % 4]},a {a} {s} and a {b} {t} number {i},a {b} {s} and a {a} {t} number {i},"
                     f"kind {i % 12}")
    return ("\n".join(lines) + "\n").encode()


def test_a_large_pairs_upload_past_its_time_limit_stops_being_read(embedded, tmp_path):
    """A pairs file sized on this machine to take twice the limit, the settling and the window to read (the row limit
    raised to hold it where a fast CPU needs more rows): the load answers at the limit, with a hint that can help, and
    within a second its work no longer runs."""
    sample = tmp_path / "sample"
    sample.mkdir()
    (sample / "sample.csv").write_bytes(big_pairs(sample, 30_000))
    begun = time.process_time()
    read_pairs(sample / "sample.csv")
    per_row = (time.process_time() - begun) / 30_000
    rows = max(90_000, math.ceil(2 * (LIMIT_S + SETTLE_S + WINDOW_S) / per_row))  # read on, it would keep the CPU
    # busy through the window
    with zipfile.ZipFile(tmp_path / "big.zip", "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("big/pairs.csv", big_pairs(tmp_path, rows))
        for name in (f"s{i}-0.png" for i in range(4)):
            zf.write(tmp_path / name, f"big/{name}")
    serving = Serving(heavy_concurrency=2, light_concurrency=4, queue_size=16, time_limit_s=LIMIT_S)
    before = settings.current()
    settings.use(dataclasses.replace(before, table_rows=max(before.table_rows, rows)))
    try:
        with running_app(embedded, serving) as url:
            status = unescaped(load(Client(url, verbose=False), tmp_path / "big.zip"))
            assert "took longer than the server's limit of 1 s" in status and "with a smaller file" in status, status
            used = after_answer()
            assert used < IDLE_CPU, (used, still_running())
    finally:
        settings.use(before)


def test_an_unpacked_file_is_named_by_its_path_in_the_archive_never_the_servers(client, tmp_path):
    """An item whose image has gone from the unpacked folder since its load (removed to keep the disk budget): the
    message names the image as the archive holds it."""
    name = "soon-gone.png"  # a name no other archive of this server holds
    (tmp_path / name).write_bytes((tmp_path / scenes(tmp_path, 1)[0][0]).read_bytes())
    with zipfile.ZipFile(tmp_path / "gone.zip", "w") as zf:
        zf.writestr("mine/mine.csv", f"image,caption_a,caption_b\n{name},a red square,a blue square\n")
        zf.write(tmp_path / name, f"mine/{name}")
    assert load(client, tmp_path / "gone.zip").startswith("Loaded 1 items.")
    (gone,) = archives.STORE.root.rglob(name)
    gone.unlink()
    *_, details = client.predict(0, api_name="/browse_show")
    assert unescaped(details) == f"**Cannot run:** Cannot show this item: mine.csv: line 2: image file mine/{name} " \
                                 f"not found", details
