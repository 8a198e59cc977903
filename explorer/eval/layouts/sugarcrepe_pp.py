"""SugarCrepe++ (Dumpala et al., NeurIPS 2024 Datasets and Benchmarks): SugarCrepe's images with two captions that
mean the same in other words and one hard negative. Published as ``data/<category>.json`` at the repository's root
(replace_att, replace_obj, replace_rel, swap_att, swap_obj): lists of ``{id, filename, caption, caption2,
negative_caption}`` over COCO val2017 images, which ``VLMs/download_coco_images.sh`` puts in ``VLMs/images/``.
Scored as the authors do: ITT (image-to-text), both positives closer to the image than the negative; TOT (text-only),
the two positives closer to each other than either is to the negative, by the text encoder alone."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from explorer.core.items import Item
from explorer.eval.dataset_loaders import DatasetError, ImageRef, _folder, _inner, _named, _text
from explorer.eval.layouts import grouped_shares, read_list

CATEGORIES = ("replace_att", "replace_obj", "replace_rel", "swap_att", "swap_obj")
TEXT_ONLY = "text-only"  # the report's entry for TOT: the text encoder, whatever the methods


def _images(given: Path | None, data: Path, files: Path) -> Path:
    """The image folder: ``--images``, else where the repository's scripts read them (``VLMs/images/``, which
    ``download_coco_images.sh`` fills, from the root; ``images/`` from ``VLMs/``), else ``val2017/``."""
    if given:
        return _folder(Path(given), "SugarCrepe++ image folder")
    tried = [data / "VLMs" / "images", data / "images", files / "images", data / "val2017", files / "val2017"]
    for folder in tried:
        if folder.is_dir():
            return folder
    raise DatasetError(f"no SugarCrepe++ image folder: tried {', '.join(map(str, dict.fromkeys(tried)))} (or give "
                       f"--images)")


def _has_files(folder: Path) -> bool:
    return any((folder / f"{c}.json").is_file() for c in CATEGORIES)


def _missing(data: Path, files: Path) -> str:
    """Why no category file is found, naming where the repository keeps them when ``data`` is its ``VLMs/``."""
    said = f"no SugarCrepe++ category file in {files} (expected {', '.join(CATEGORIES)}.json)"
    link = data / "data"
    if link.is_symlink() and _has_files(link):
        return (f"{said}: {link} is a link leading outside {data}, refused; give --data the repository's root "
                f"({data.parent}), or --allow-outside")
    if data.name == "VLMs" and _has_files(data.parent / "data"):
        return f"{said}: the repository keeps them in {data.parent / 'data'}; give --data its root ({data.parent})"
    return said


def load_sugarcrepe_pp(data: Path, images: Path | None = None, limit: int | None = None) -> list[Item]:
    """Each category file's items: one image, its captions (caption, caption2, negative_caption); the first two
    both right (``also_right``)."""
    data = Path(data)
    files = _inner(data, _has_files)
    present = [c for c in CATEGORIES if (files / f"{c}.json").is_file()]
    if not present:
        raise DatasetError(_missing(data, files))
    root = _images(images, data, files)
    items: list[Item] = []
    for cat in present:
        for n, row in enumerate(read_list(files / f"{cat}.json")[:limit]):
            where = f"{cat}.json: item {row.get('id', n) if isinstance(row, dict) else n}"
            captions = tuple(_text(row, k, where) for k in ("caption", "caption2", "negative_caption"))
            ref = ImageRef(where, path=_named(root, _text(row, "filename", where), where))
            items.append(Item(cat, (ref,), captions, also_right=(1,), id=f"{cat}/{row.get('id', n)}"))
    return items


def text_only(items: Sequence[Item], encoder) -> list[bool]:
    """TOT of each item: cos(P1, P2) above cos(P1, N) and above cos(P2, N), on the text encoder's embeddings."""
    if not items:
        return []
    found = encoder.embed_texts([c for it in items for c in it.captions]).numpy().astype(np.float64)
    p1, p2, neg = found.reshape(len(items), 3, -1).transpose(1, 0, 2)
    both, first, second = (p1 * p2).sum(1), (p1 * neg).sum(1), (p2 * neg).sum(1)
    return [bool(b > f and b > s) for b, f, s in zip(both, first, second)]


def extras(items: Sequence[Item], found: Mapping[str, Sequence], encoder) -> dict:
    """TOT per category and over all, as an entry of its own beside the methods' ITT."""
    if encoder is None:
        return {}
    return {TEXT_ONLY: grouped_shares("tot", [it.kind for it in items], text_only(items, encoder))}
