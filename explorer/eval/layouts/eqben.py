"""EqBen (Wang et al., ICCV 2023): visual-minimal changes, two images that differ by little (frames of one video, or
synthetic scenes with one thing moved, recoloured or added) with a caption each. Published as JSON annotation files
whose items are ``{image0, caption0, image1, caption1}``: the open 10% subset ``eqben_subset_10percent_final.json``
(a list, images under ``image_subset/``), the Kubric and StableDiffusion parts (lists), and the video parts (AG,
YouCook2, GEBC: the same items nested in objects by video, AG's captions as lists whose first one the authors use;
YouCook2's frames as ``.npy`` arrays in BGR). Scored as the authors do (``eqben_acc.cal_wino_score``): Winoground's
text, image and group scores, per part where the image paths name it (``eqbenkubric_cnt/...``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import numpy as np
from PIL import Image

from explorer.core.items import Item
from explorer.eval.dataset_loaders import DatasetError, ImageRef, _get, _named, _read_json, _text, per_category
from explorer.images.inputs import normalize_image

FIELDS = ("image0", "caption0", "image1", "caption1")
PARTS = ("eqbenag", "eqbenyoucook2", "eqbengebc", "eqbenkubric_loc", "eqbenkubric_attr", "eqbenkubric_cnt", "eqbensd")
SUBSET_FOLDER = "image_subset"  # where the open subset's images unpack


@dataclass(frozen=True)
class FrameRef(ImageRef):
    """A YouCook2 frame saved as a NumPy array in BGR order, read as the authors' ``process_img_npy`` reads it."""

    def load(self) -> Image.Image:
        if self.path is None or not self.path.is_file():
            raise DatasetError(f"{self.source}: image file {self.path} not found")
        try:
            pixels = np.load(self.path, allow_pickle=False)[:, :, [2, 1, 0]]
            return normalize_image(Image.fromarray(np.ascontiguousarray(pixels, dtype=np.uint8), "RGB"))
        except (OSError, ValueError, IndexError) as exc:
            raise DatasetError(f"{self.source}: {self.path.name} is no BGR frame ({exc})") from exc


def _pairs(node: Any, where: str) -> Iterator[tuple[str, dict]]:
    """Every ``{image0, ...}`` object of an annotation file, in file order, with where it is."""
    if isinstance(node, dict) and "image0" in node:
        yield where, node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from _pairs(value, f"{where}/{key}")
    elif isinstance(node, list):
        for n, value in enumerate(node):
            yield from _pairs(value, f"{where}[{n}]")


def _caption(row: dict, name: str, where: str) -> str:
    value = _get(row, name, where)
    return value[0] if isinstance(value, list) and value and isinstance(value[0], str) else _text(row, name, where)


def _image(row: dict, name: str, root: Path, where: str) -> ImageRef:
    path = _named(root, _text(row, name, where), where)
    return (FrameRef if path.suffix == ".npy" else ImageRef)(where, path=path)


def load_eqben(data: Path, images: Path | None = None, limit: int | None = None) -> list[Item]:
    """An EqBen annotation file (or the one JSON file of a folder), grouped by the part its image paths name."""
    data = Path(data)
    files = [data] if data.is_file() else sorted(data.glob("*.json"))
    if len(files) != 1:
        raise DatasetError(f"{data}: expected one EqBen annotation file, found {len(files)} .json files: pass one")
    folder = files[0].parent
    root = Path(images) if images else (folder / SUBSET_FOLDER if (folder / SUBSET_FOLDER).is_dir() else folder)
    items = []
    for n, (where, row) in enumerate(_pairs(_read_json(files[0]), files[0].name)):
        refs = (_image(row, "image0", root, where), _image(row, "image1", root, where))
        part = str(row["image0"]).split("/")[0]
        items.append(Item(part if part in PARTS else files[0].stem, refs,
                          (_caption(row, "caption0", where), _caption(row, "caption1", where)), id=str(n)))
    if not items:
        raise DatasetError(f"{files[0].name}: no item with the fields {', '.join(FIELDS)}")
    return per_category(items, limit)
