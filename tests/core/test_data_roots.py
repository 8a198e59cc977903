"""What a load may read of the server: typed paths only inside the data roots, every path a file names inside the
benchmark's folder, refusals that name nothing outside, uploads unpacked safely, and damaged images one bad row."""

import io
import json
import struct
import zipfile
import zlib
from dataclasses import replace

import numpy as np
import pytest
from PIL import Image

from explorer.core import settings
from explorer.core.data_roots import DataAccess, OutsideRoots
from explorer.eval import uploads
from explorer.eval.benchmark_registry import left_out, load_items
from explorer.eval.dataset_loaders import DatasetError
from explorer.eval.pairs import read_pairs

CAPTIONS = "a red square,a blue square"


def bomb_png() -> bytes:
    """A PNG of a few dozen bytes whose header claims 30000 x 30000 pixels."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 30000, 30000, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0")) + chunk(b"IEND", b"")


def cut_jpeg() -> bytes:
    """A JPEG whose header is whole and whose pixels stop short: only decoding it finds that."""
    noise = np.random.default_rng(0).integers(0, 255, (128, 128, 3), dtype=np.uint8)
    out = io.BytesIO()
    Image.fromarray(noise).save(out, "JPEG")
    return out.getvalue()[: int(len(out.getvalue()) * 0.7)]


@pytest.fixture
def server(tmp_path):
    """A data root with a pairs file in it, and a secret beside the root: a picture and a table no user may see."""
    root, secret = tmp_path / "root", tmp_path / "secret"
    root.mkdir(), secret.mkdir()
    Image.new("RGB", (32, 32), (200, 30, 30)).save(root / "ok.png")
    Image.new("RGB", (32, 32), (0, 0, 0)).save(secret / "private.png")
    (secret / "private.csv").write_text("password,owner\nhunter2,root\n")
    (root / "link.png").symlink_to(secret / "private.png")
    return root, secret


def test_a_page_without_data_roots_reads_no_typed_path_and_says_nothing_of_it(server):
    root, secret = server
    for typed in (str(root), str(secret / "private.csv"), "/proc/self/environ", "relative/path"):
        with pytest.raises(OutsideRoots) as refused:
            DataAccess.page(()).typed(typed)
        assert "upload" in str(refused.value) and typed not in str(refused.value)


def test_with_data_roots_a_typed_path_must_lie_inside_one(server):
    root, secret = server
    access = DataAccess.page([root])
    assert access.typed("ok.png") == root / "ok.png" and access.typed(str(root / "ok.png")) == root / "ok.png"
    for typed in (str(secret / "private.csv"), "../secret/private.csv", "/proc/self/environ"):
        with pytest.raises(OutsideRoots) as refused:
            access.typed(typed)
        assert "private" not in str(refused.value) and "proc" not in str(refused.value)
    for benchmark, typed in (("bivlc", str(secret)), ("bivlc", str(secret / "private.csv")),
                             ("winoground", "/proc/self/environ"), ("pairs", str(secret / "private.csv"))):
        with pytest.raises(DatasetError) as refused:  # no listing, no header, no existence
            load_items(benchmark, typed, access=access)
        assert not any(word in str(refused.value) for word in ("private", "password", "owner", "environ"))


def test_a_pairs_file_inside_a_root_has_each_path_out_refused_by_line(server):
    root, secret = server
    rows = ["image,caption_a,caption_b", f"ok.png,{CAPTIONS}", f"{secret / 'private.png'},{CAPTIONS}",
            f"../secret/private.png,{CAPTIONS}", f"link.png,{CAPTIONS}", f"../secret/absent.png,{CAPTIONS}"]
    (root / "mine.csv").write_text("\n".join(rows) + "\n")
    access = DataAccess.page([root])
    items = load_items("pairs", "mine.csv", access=access)
    said = left_out("pairs", "mine.csv", access=access)
    assert [it.id for it in items] == ["line 2"]
    assert [s.split(":")[0] for s in said] == [f"line {n}, field 'image'" for n in (3, 4, 5, 6)]
    assert all("leads outside" in s and "secret" not in s and "private" not in s for s in said)  # nor existence
    assert len({s.split(": ", 1)[1] for s in said}) == 1  # an absent file out reads as a present one


def test_the_cli_reads_paths_out_of_the_folder_only_when_allowed(server):
    root, secret = server
    (root / "mine.jsonl").write_text(json.dumps({"image": str(secret / "private.png"), "caption_a": "a red square",
                                                 "caption_b": "a blue square"}) + "\n")
    with pytest.raises(DatasetError, match="no usable row"):
        load_items("pairs", root / "mine.jsonl")
    assert "leads outside" in left_out("pairs", root / "mine.jsonl")[0]
    items = load_items("pairs", root / "mine.jsonl", access=DataAccess(outside=True))
    assert items[0].images[0].path == secret / "private.png"


def test_public_loaders_keep_their_files_and_images_inside_the_folder(server):
    root, secret = server
    (root / "bivlc.csv").write_text("image,caption,negative_caption,negative_image,type\n"
                                    f"ok.png,a,b,{secret / 'private.png'},swap\n")
    with pytest.raises(DatasetError) as refused:
        load_items("bivlc", root / "bivlc.csv")
    assert "row 0" in str(refused.value) and "leads outside" in str(refused.value)
    assert "private" not in str(refused.value)
    (root / "examples.jsonl").symlink_to(secret / "private.csv")  # a table linked out is not read
    with pytest.raises(DatasetError) as refused:
        load_items("winoground", root)
    assert "password" not in str(refused.value) and "leads outside" in str(refused.value)


def test_damaged_or_oversized_images_are_bad_rows_named_by_line(tmp_path):
    Image.new("RGB", (32, 32), (200, 30, 30)).save(tmp_path / "ok.png")
    (tmp_path / "bomb.png").write_bytes(bomb_png())
    (tmp_path / "cut.png").write_bytes((tmp_path / "ok.png").read_bytes()[:60])
    rows = ["image,caption_a,caption_b", f"bomb.png,{CAPTIONS}", f"cut.png,{CAPTIONS}", f"ok.png,{CAPTIONS}"]
    (tmp_path / "mine.csv").write_text("\n".join(rows) + "\n")
    items, bad = read_pairs(tmp_path / "mine.csv")
    assert [it.id for it in items] == ["line 4"] and [(b.line, b.field) for b in bad] == [(2, "image"), (3, "image")]
    assert "pixels than the" in bad[0].problem and "damaged or cut short" in bad[1].problem


def test_an_image_found_damaged_while_scoring_is_left_out_and_named(tmp_path):
    from conftest import ColourMethod

    from explorer.eval.accuracy import Unreadable, evaluate_items, score_chunk

    Image.new("RGB", (32, 32), (200, 30, 30)).save(tmp_path / "ok.png")
    (tmp_path / "cut.jpg").write_bytes(cut_jpeg())  # its header reads: the load keeps it
    (tmp_path / "mine.csv").write_text(f"image,caption_a,caption_b\ncut.jpg,{CAPTIONS}\nok.png,{CAPTIONS}\n")
    items = load_items("pairs", tmp_path / "mine.csv")
    assert len(items) == 2
    found = score_chunk([ColourMethod()], items)
    assert isinstance(found[0], Unreadable) and "truncated" in found[0].why and found[1]["colour"].correct
    said: list[str] = []
    results = evaluate_items([ColourMethod()], items, "pairs", left_out=said)
    assert results["colour"]["pairs"]["n"] == 1 and said[0].startswith("line 2: mine.csv: line 2")


def zipped(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return out.getvalue()


def test_an_uploaded_zip_is_unpacked_into_its_own_folder_and_its_pairs_file_found(tmp_path):
    png = io.BytesIO()
    Image.new("RGB", (32, 32), (200, 30, 30)).save(png, "PNG")
    upload = tmp_path / "mine.zip"
    upload.write_bytes(zipped({"mine/pairs.csv": f"image,caption_a,caption_b\nok.png,{CAPTIONS}\n".encode(),
                               "mine/ok.png": png.getvalue()}))
    path = uploads.benchmark_path(upload, "pairs")
    assert path.name == "pairs.csv" and tmp_path not in path.parents
    assert uploads.benchmark_path(upload, "pairs") == path  # the same archive is unpacked once
    assert [it.id for it in load_items("pairs", path)] == ["line 2"]
    assert uploads.benchmark_path(upload, "bivlc") == path.parent  # other benchmarks: the zipped folder


def test_an_archive_that_leaves_its_folder_or_unpacks_too_large_is_refused(tmp_path, monkeypatch):
    for name in ("../escape.csv", "/etc/escape.csv", "..\\escape.csv"):
        upload = tmp_path / "bad.zip"
        upload.write_bytes(zipped({name: b"x"}))
        with pytest.raises(DatasetError, match="a path out of its folder"):
            uploads.benchmark_path(upload, "pairs")
    monkeypatch.setattr(settings, "_current", replace(settings.current(), uploads_mb=1000 / (1 << 20)))
    upload = tmp_path / "big.zip"
    upload.write_bytes(zipped({"a.csv": b"0" * 5000}))  # a few dozen bytes packed
    with pytest.raises(DatasetError, match="unpacks to 5 KiB, more than the 1 KiB this server keeps"):
        uploads.benchmark_path(upload, "pairs")
    (tmp_path / "note.txt").write_text("x")
    with pytest.raises(DatasetError, match="upload a table"):
        uploads.benchmark_path(tmp_path / "note.txt", "pairs")
