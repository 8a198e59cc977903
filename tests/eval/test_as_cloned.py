"""The public benchmarks found where their users clone or download them: ``--data`` at the repository's or the
download's root as the authors' README leaves it, VALSE's images in several folders as its ``config.py`` has them,
ColorSwap's parquet as the model hub names it, the split named, and messages that name the path actually tried."""

import io
import json
import os
import shutil

import pandas as pd
import pytest
from layout_fixtures import colorswap, sugarcrepe, sugarcrepe_pp, valse, whatsup
from PIL import Image

from explorer.core.data_roots import DataAccess
from explorer.eval.benchmark_registry import load_items
from explorer.eval.dataset_loaders import DatasetError


def test_sugarcrepe_pp_from_the_repository_root(tmp_path):
    """data/ at the root, the images where VLMs/download_coco_images.sh puts them (VLMs/images)."""
    root = sugarcrepe_pp(tmp_path / "scpp")
    (root / "VLMs").mkdir()
    shutil.move(root / "images", root / "VLMs" / "images")
    items = load_items("sugarcrepe-pp", root)
    assert len(items) == 12 and items[0].images[0].path.parent == root / "VLMs" / "images"
    with pytest.raises(DatasetError, match=r"keeps them in .*scpp/data; give --data its root"):
        load_items("sugarcrepe-pp", root / "VLMs")


def test_a_link_refused_is_said(tmp_path):
    root = sugarcrepe_pp(tmp_path / "scpp")
    (root / "VLMs").mkdir()
    os.symlink("../data", root / "VLMs" / "data")
    with pytest.raises(DatasetError, match=r"VLMs/data is a link leading outside .*VLMs, refused"):
        load_items("sugarcrepe-pp", root / "VLMs", access=DataAccess())


def test_valse_reads_foil_it_from_a_folder_of_its_own(tmp_path):
    """config.py: every piece's images under data/, FOIL-it's COCO val2014 elsewhere; both read in one run."""
    data = valse(tmp_path / "VALSE")
    table = json.loads((data / "existence.json").read_text())
    coco = tmp_path / "coco" / "val2014"
    coco.mkdir(parents=True)
    for key, row in table.items():
        shutil.copy(data / "visual7w/images" / row["image_file"], coco / row["image_file"])
    (data / "foil-it.json").write_text(json.dumps({f"foil_{k}": {**r, "dataset": "coco"} for k, r in table.items()}))
    items = load_items("valse", tmp_path / "VALSE", images=[tmp_path / "coco"])
    kinds = [it.kind for it in items]
    assert kinds.count("foil-it") == kinds.count("existence") == 5 and kinds.count("relations") == 5
    assert all(it.images[0].path.parent == coco for it in items if it.kind == "foil-it")
    with pytest.raises(DatasetError, match="takes one image folder"):
        load_items("colorswap", tmp_path / "VALSE", images=[tmp_path / "a", tmp_path / "b"])


def test_colorswap_parquet_as_the_hub_names_it_and_the_split_said(tmp_path):
    root = colorswap(tmp_path / "json")
    rows = json.loads((root / "test.json").read_text())

    def struct(path):
        buf = io.BytesIO()
        Image.open(root / path).save(buf, format="PNG")
        return {"bytes": buf.getvalue(), "path": None}

    hub = tmp_path / "hub" / "default" / "test"
    hub.mkdir(parents=True)
    pd.DataFrame([{**r, "image_1": struct(r["image_1"]), "image_2": struct(r["image_2"])} for r in rows]).to_parquet(
        hub / "0000.parquet")
    assert [it.captions for it in load_items("colorswap", tmp_path / "hub")] == [
        it.captions for it in load_items("colorswap", root)]
    (root / "test.json").rename(root / "train.json")
    assert {it.kind for it in load_items("colorswap", root)} == {"dalle3 (train)", "midjourney (train)"}


def test_whatsup_names_the_image_path_it_tried(tmp_path):
    root = whatsup(tmp_path / "data")
    first = json.loads((root / "controlled_images_dataset.json").read_text())[0]["image_path"]
    (root / first.removeprefix("data/")).unlink()
    item = load_items("whatsup", root)[0]
    with pytest.raises(DatasetError) as err:
        item.images[0].load()
    assert str(root / first.removeprefix("data/")) in str(err.value) and "data/data" not in str(err.value)


@pytest.mark.parametrize("name, build, inner", [
    ("sugarcrepe", lambda root: sugarcrepe(root / "data"), "data"),
    ("whatsup", lambda root: whatsup(root / "data"), "data"),
    ("valse", lambda root: valse(root), "data"),
    ("colorswap", lambda root: colorswap(root / "data"), "data"),
])
def test_the_repository_root_reads_as_its_data_folder(tmp_path, name, build, inner):
    """``--data`` at a cloned repository's root finds the files its scripts read from ``data/``."""
    build(tmp_path / "repo")
    from_root, from_data = load_items(name, tmp_path / "repo"), load_items(name, tmp_path / "repo" / inner)
    assert [(it.id, it.captions) for it in from_root] == [(it.id, it.captions) for it in from_data] and from_root
