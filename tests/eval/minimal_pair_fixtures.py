"""Tiny copies of VisMin, MMVP-VLM and SPEC in their published layouts, their pictures world scenes in the middle of
wider pictures (``layout_fixtures.picture``)."""

import csv
import io
from pathlib import Path

from layout_fixtures import dump, picture, save

from explorer import world

VISMIN_CATEGORIES = (("object", "object"), ("attribute", "attribute"), ("relation", "relation"), ("counting", "size"))
TEXT = {False: "T0_I0 > T1_I0 & T1_I1 > T0_I1", True: "T1_I0 > T0_I0 & T0_I1 > T1_I1"}
IMAGE = {False: "T0_I0 > T0_I1 & T1_I1 > T1_I0", True: "T0_I1 > T0_I0 & T1_I0 > T1_I1"}


def _png(scene) -> bytes:
    out = io.BytesIO()
    picture(scene).save(out, format="PNG")
    return out.getvalue()


def vismin(root: Path, n: int = 3, old: bool = False, arrow: bool = False) -> Path:
    """The hub's test split as its authors keep it today: caption i image i's on every row, no answer key, in
    ``data/test-00000-of-00001.parquet`` (images as ``{bytes, path}`` structs) or, with ``arrow``, the folder
    ``load_from_disk`` reads (``data/test/data-00000-of-00001.arrow``, an arrow stream). ``old``: the November 2024
    release, every other row's captions in the other order and the answer key ``solutions/sim_solution.csv``."""
    import pandas as pd
    import pyarrow as pa

    rows, keys = [], []
    for category, kind in VISMIN_CATEGORIES:
        for item in world.swap_items("id", kind, n):
            swapped = old and len(rows) % 2 == 1
            texts = item.captions[::-1] if swapped else item.captions
            rows.append({"id": len(rows), "text_0": texts[0], "text_1": texts[1],
                         "image_0": {"bytes": _png(item.images[0]), "path": None},
                         "image_1": {"bytes": _png(item.images[1]), "path": None}, "category": category})
            keys.append({"idx": len(keys), "Text": TEXT[swapped], "Image": IMAGE[swapped], "category": category})
    (root / "data" / "test").mkdir(parents=True, exist_ok=True)
    if arrow:
        table = pa.Table.from_pylist(rows)
        with pa.OSFile(str(root / "data" / "test" / "data-00000-of-00001.arrow"), "wb") as sink:
            with pa.ipc.new_stream(sink, table.schema) as writer:
                writer.write_table(table)
        (root / "data" / "dataset_dict.json").write_text('{"splits": ["test"]}')
    else:
        pd.DataFrame(rows).to_parquet(root / "data" / "test-00000-of-00001.parquet")
    if old:
        (root / "solutions").mkdir()
        pd.DataFrame(keys).to_csv(root / "solutions" / "sim_solution.csv", index=False)
    return root


def old_key(root: Path, n: int = 3) -> Path:
    """The November 2024 release's answer key for ``vismin``'s rows (every other row crosswise), written under
    ``root`` apart from any rows."""
    keys = [{"idx": i, "Text": TEXT[i % 2 == 1], "Image": IMAGE[i % 2 == 1], "category": category}
            for i, (category, _) in enumerate(c for c in VISMIN_CATEGORIES for _ in range(n))]
    (root / "solutions").mkdir(parents=True, exist_ok=True)
    with (root / "solutions" / "sim_solution.csv").open("w", newline="") as f:
        out = csv.DictWriter(f, ("idx", "Text", "Image", "category"))
        out.writeheader()
        out.writerows(keys)
    return root / "solutions" / "sim_solution.csv"


MMVP_PATTERNS = (("Orientation", "relation"), ("Presence", "size"))  # the file's short type names


def mmvp(root: Path, folder: str = "MLLM_VLM Images", n: int = 4) -> Path:
    """``Questions.csv`` (Index, Type, Statement; a pair's statements on consecutive rows, the odd qid the first
    picture's) and ``<folder>/<type>/<qid>.jpg``."""
    root.mkdir(parents=True, exist_ok=True)
    with (root / "Questions.csv").open("w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["Index", "Type", "Statement"])
        qid = 1
        for pattern, kind in MMVP_PATTERNS:
            for item in world.swap_items("id", kind, n):
                for k in (0, 1):
                    save(item.images[k], root / folder / pattern / f"{qid + k}.jpg")
                    out.writerow([qid + k, pattern, item.captions[k]])
                qid += 2
    return root


SPEC_SUBSETS = (("absolute_spatial", "relation"), ("count", "size"))


def spec(root: Path, n: int = 4) -> Path:
    """``<subset>/image2text.json`` and ``text2image.json`` with ``images/``: three candidates each, the right one
    at every place in turn."""
    for subset, kind in SPEC_SUBSETS:
        items = world.swap_items("id", kind, n + 1)
        i2t, t2i = [], []
        for i, (item, other) in enumerate(zip(items, items[1:])):
            names = [f"images/{i}_{k}.jpg" for k in range(3)]
            for name, scene in zip(names, (item.images[0], item.images[1], other.images[0])):
                save(scene, root / subset / name)
            label = i % 3
            texts = [item.captions[1], other.captions[0]]
            texts.insert(label, item.captions[0])
            i2t.append({"query": names[0], "keys": texts, "label": label})
            keys = [names[1], names[2]]
            keys.insert(label, names[0])
            t2i.append({"query": item.captions[0], "keys": keys, "label": label})
        dump(root / subset / "image2text.json", i2t)
        dump(root / subset / "text2image.json", t2i)
    return root
