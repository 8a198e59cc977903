"""Nothing of a user's stays on the server: the page served by its own process (``python -m explorer app``, a private
temporary folder), given an upload, a drawing and a report, then stopped by SIGTERM or SIGINT, exits within seconds
and leaves none of them, nor gradio's cache of them, in its temporary folder."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import numpy as np
import pytest
from gradio_client import Client, handle_file
from PIL import Image

from tests.app_server import free_port
from tests.ui.test_pad import _pad_value

ROOT = Path(__file__).resolve().parents[2]
START_S, EXIT_S = 240, 10  # the page's start (a model loaded on a busy machine); its exit once stopped


def left_in(folder: Path) -> list[str]:
    """The files under ``folder``, by their paths in it."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def started(tmp: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {**os.environ, "TMPDIR": str(tmp), "MPLCONFIGDIR": str(tmp.parent / "mpl"), "EXPLORER_LOG_LEVEL": "WARNING"}
    env.pop("GRADIO_TEMP_DIR", None)
    server = subprocess.Popen([sys.executable, "-m", "explorer", "app", "--port", str(port)], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"the page did not start: {server.stderr.read().decode()[-2000:]}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return server, url
        except httpx.HTTPError:
            time.sleep(0.5)
    server.kill()
    pytest.fail("the page did not answer within its start time")


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_server_leaves_no_upload_drawing_or_report(tmp_path, stop):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    photo = tmp_path / "photo.png"
    Image.fromarray(np.random.default_rng(0).integers(0, 256, (96, 96, 3), dtype=np.uint8)).save(photo)
    server, url = started(tmp)
    try:
        client = Client(url, verbose=False, download_files=False)
        value, _ = _pad_value(tmp_path)
        drawn, _ = client.predict(value, None, api_name="/drawing")
        a, b = "a red square and a blue circle", "a blue square and a red circle"
        client.predict(handle_file(str(photo)), a, b, api_name="/analyze")
        files, note = client.predict(handle_file(str(photo)), a, b, api_name="/report")
        assert files and "Ready to download" in note, note
        made = left_in(tmp)
        assert any("explorer-drawings-" in f for f in made) and any("explorer-reports-" in f for f in made), made
        assert any("gradio" in f.split("/")[0] and f.endswith("/photo.png") for f in made), made  # the upload
        begun = time.monotonic()
        server.send_signal(stop)
        server.wait(EXIT_S)
        took = time.monotonic() - begun
    finally:
        if server.poll() is None:
            server.kill()
    assert took < EXIT_S
    assert left_in(tmp) == [], left_in(tmp)
