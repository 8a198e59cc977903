"""Tiny copies of ColorSwap, What'sUp, SugarCrepe++, VALSE and EqBen in their published layouts, their pictures world
scenes drawn at test time, and the authors' metric code re-implemented line by line on raw cosines."""

import json
from pathlib import Path

import numpy as np
from PIL import Image

from explorer import world
from explorer.world.scene import WorldObject

SIZE = 128  # the embedded model's input side: the pictures reach it unchanged


def save(scene, path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    scene.render(SIZE).save(path)
    return path.name


def dump(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1))
    return path


def colorswap(root: Path, n: int = 8) -> Path:
    """``test.json`` as the authors publish it: ``images/img_<id>_<1|2>.png``."""
    rows = []
    for i, item in enumerate(world.swap_items("id", "attribute", n)):
        for k in (0, 1):
            save(item.images[k], root / "images" / f"img_{i}_{k + 1}.png")
        rows.append({"id": i, "caption_1": item.captions[0], "caption_2": item.captions[1],
                     "image_1": f"images/img_{i}_1.png", "image_2": f"images/img_{i}_2.png",
                     "image_source": "midjourney" if i % 2 else "dalle3", "caption_source": "human"})
    dump(root / "test.json", rows)
    return root


def _placed(a: WorldObject, b: WorldObject, where: str) -> tuple[WorldObject, WorldObject]:
    dx, dy = {"left": (-0.3, 0), "right": (0.3, 0), "above": (0, -0.3), "below": (0, 0.3)}[where]
    moved = WorldObject(a.color, a.shape, "small", 0.5 + dx, 0.5 + dy)
    return moved, WorldObject(b.color, b.shape, "small", 0.5, 0.5)


CONTROLLED = {  # subset -> (file, image folder, its four prepositions as file names, the world's way to draw each)
    "A": ("controlled_images_dataset.json", "controlled_images",
          (("left_of", "left"), ("right_of", "right"), ("on", "above"), ("under", "below"))),
    "B": ("controlled_clevr_dataset.json", "controlled_clevr",
          (("left_of", "left"), ("right_of", "right"), ("in-front_of", "below"), ("behind", "above"))),
}
WORDS = {"left": "to the left of", "right": "to the right of", "above": "above", "below": "below"}


def whatsup(root: Path) -> Path:
    """``data/`` of the authors' repository: the two controlled subsets (four images per object pair, one missing
    in B), COCO-QA one-object and GQA two-object lists; ``image_path`` as the authors' code opens it."""
    objects = [("red", "circle", "blue", "square"), ("green", "triangle", "yellow", "circle"),
               ("blue", "star", "red", "triangle")]
    for subset, (file, folder, preps) in CONTROLLED.items():
        rows = []
        for c1, s1, c2, s2 in objects:
            a, b = WorldObject(c1, s1, "small", 0.5, 0.5), WorldObject(c2, s2, "small", 0.5, 0.5)
            for k, (prep, drawn) in enumerate(preps):
                if subset == "B" and (c1, prep) == ("blue", "behind"):
                    continue  # a set left incomplete: the authors' denominators stay half and a quarter of the items
                name = f"{c1}-{s1}_{prep}_{c2}-{s2}.jpeg"
                save(world.Scene(_placed(a, b, drawn)), root / folder / name)
                captions = [f"{a.phrase()} {WORDS[d]} {b.phrase()}" for _, d in preps]
                rows.append({"image_path": f"data/{folder}/{name}", "caption_options": captions[k:] + captions[:k]})
        dump(root / file, rows)
    qa = {"coco_qa_one_obj.json": ("val2017", lambda i: f"{i:012d}.jpg"),
          "vg_qa_two_obj.json": ("vg_images", lambda i: f"{i}.jpg")}
    for file, (folder, name) in qa.items():
        rows = []
        for i, item in enumerate(world.swap_items("id", "relation", 5)):
            save(item.images[0], root / folder / name(100 + i))
            rows.append([100 + i, item.captions[0], item.captions[1]])
        dump(root / file, rows)
    return root


def sugarcrepe_pp(root: Path) -> Path:
    """``data/<category>.json`` and ``images/``: caption, caption2 (its objects named in the other order) and the
    attribute or object swap as the negative."""
    for cat, kind in (("swap_att", "attribute"), ("swap_obj", "object")):
        rows = []
        for i, item in enumerate(world.swap_items("id", kind, 6)):
            name = save(item.images[0], root / "images" / f"{cat}-{i:04d}.jpg")
            rows.append({"id": i, "filename": name, "caption": item.captions[0],
                         "caption2": " and ".join(reversed(item.captions[0].split(" and "))),
                         "negative_caption": item.captions[1]})
        dump(root / "data" / f"{cat}.json", rows)
    return root


def valse(root: Path) -> Path:
    """``data/relations.json`` and ``data/existence.json`` (``{id: instance}``), images in each piece's source folder
    (``relations/test_images/``, ``visual7w/images/``); one instance the annotators did not validate."""
    pieces = {"relations": ("relation", "relations/test_images"), "existence": ("attribute", "visual7w/images")}
    for piece, (kind, folder) in pieces.items():
        table = {}
        for i, item in enumerate(world.swap_items("id", kind, 6)):
            name = save(item.images[0], root / "data" / folder / f"{piece}_{i}.jpg")
            table[f"{piece}_test_{i}"] = {
                "dataset": "visual7w", "original_split": "test", "dataset_idx": name, "linguistic_phenomena": piece,
                "image_file": name, "caption": item.captions[0], "classes": "", "classes_foil": "",
                "mturk": {"foil": 0, "caption": 1 if i == 2 else 3, "other": 0}, "foil": item.captions[1]}
        dump(root / "data" / f"{piece}.json", table)
    return root / "data"


def eqben(root: Path) -> Path:
    """The open subset's ``eqben_subset_10percent_final.json`` and ``image_subset/``: Kubric-like parts (PNG) and a
    YouCook2-like part (frames as BGR ``.npy`` arrays)."""
    rows = []
    for part, kind in (("eqbenkubric_attr", "attribute"), ("eqbenkubric_loc", "relation"), ("eqbenyoucook2", "size")):
        for i, item in enumerate(world.swap_items("id", kind, 4)):
            names = []
            for k in (0, 1):
                if part == "eqbenyoucook2":
                    path = root / "image_subset" / part / f"{i}_{k}.npy"
                    path.parent.mkdir(parents=True, exist_ok=True)
                    np.save(path, np.asarray(item.images[k].render(SIZE))[:, :, ::-1])
                else:
                    save(item.images[k], root / "image_subset" / part / f"{i}_{k}.png")
                names.append(f"{part}/{i}_{k}.{'npy' if part == 'eqbenyoucook2' else 'png'}")
            rows.append({"image0": names[0], "caption0": item.captions[0], "image1": names[1],
                         "caption1": item.captions[1]})
    dump(root / "eqben_subset_10percent_final.json", rows)
    return root


def cosines(encoder, images: list[Image.Image], captions: list[str]) -> np.ndarray:
    """``s[c, i]``: cosine of caption c and image i, as the authors' scripts compute it (``encode_image``,
    ``encode_text``, normalized, dot product)."""
    return encoder.embed_texts(captions).numpy() @ encoder.embed_images(images).numpy().T
