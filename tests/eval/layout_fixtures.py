"""Tiny copies of the nine public benchmarks in their published layouts, their pictures world scenes drawn at test
time in the middle of wider pictures (as COCO's photos are wider than tall), and the authors' metric code
re-implemented line by line on raw cosines."""

import json
import zlib
from pathlib import Path

import numpy as np
from PIL import Image

from explorer import world
from explorer.world.scene import WorldObject

SIZE = 128  # the embedded model's input side
WIDE = (176, 128)  # every picture's (width, height): the model's own preprocess keeps its middle 128 x 128


def picture(scene) -> Image.Image:
    """The scene drawn at ``SIZE`` in the middle of a ``WIDE`` picture whose sides are noise: a centre crop (every
    official script's reading) drops the sides, a square padded around the whole picture keeps them."""
    width, height = WIDE
    noise = np.random.default_rng(zlib.crc32(repr(scene).encode())).integers(0, 256, (height, width, 3))
    out = Image.fromarray(noise.astype(np.uint8))
    out.paste(scene.render(SIZE), ((width - SIZE) // 2, 0))
    return out


def save(scene, path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    picture(scene).save(path)
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
                    np.save(path, np.asarray(picture(item.images[k]))[:, :, ::-1])
                else:
                    save(item.images[k], root / "image_subset" / part / f"{i}_{k}.png")
                names.append(f"{part}/{i}_{k}.{'npy' if part == 'eqbenyoucook2' else 'png'}")
            rows.append({"image0": names[0], "caption0": item.captions[0], "image1": names[1],
                         "caption1": item.captions[1]})
    dump(root / "eqben_subset_10percent_final.json", rows)
    return root


def sugarcrepe(root: Path) -> Path:
    """The repository's ``data/<category>.json`` (``{idx: {filename, caption, negative_caption}}``) and COCO's
    ``val2017/`` beside them."""
    for cat, kind in (("swap_att", "attribute"), ("replace_rel", "relation")):
        table = {}
        for i, item in enumerate(world.swap_items("id", kind, 6)):
            name = save(item.images[0], root / "val2017" / f"{cat}_{i:012d}.jpg")
            table[str(i)] = {"filename": name, "caption": item.captions[0], "negative_caption": item.captions[1]}
        dump(root / f"{cat}.json", table)
    return root


def winoground(root: Path, n: int = 4) -> Path:
    """``examples.jsonl`` and ``images/ex_<id>_img_<k>.png``, as the dataset's repository holds them."""
    rows = []
    pairs = [(tag, it) for tag, kind in (("Object", "attribute"), ("Relation", "relation"))
             for it in world.swap_items("id", kind, n)]
    for i, (tag, item) in enumerate(pairs):
        names = [f"ex_{i}_img_{k}" for k in (0, 1)]
        for k in (0, 1):
            save(item.images[k], root / "images" / f"{names[k]}.png")
        rows.append({"id": i, "image_0": names[0], "image_1": names[1], "caption_0": item.captions[0],
                     "caption_1": item.captions[1], "tag": tag, "secondary_tag": "", "num_main_preds": 1,
                     "collapsed_tag": tag})
    (root / "examples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def bivlc(root: Path) -> Path:
    """One CSV table of image, caption, negative_caption, negative_image, type (images beside it)."""
    import pandas as pd

    rows = []
    for kind in ("swap", "replace"):
        for i, item in enumerate(world.swap_items("id", "attribute" if kind == "swap" else "object", 5)):
            names = [save(item.images[k], root / "images" / f"{kind}_{i}_{k}.png") for k in (0, 1)]
            rows.append({"image": f"images/{names[0]}", "caption": item.captions[0],
                         "negative_caption": item.captions[1], "negative_image": f"images/{names[1]}",
                         "type": kind, "subtype": "att"})
    root.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(root / "bivlc.csv", index=False)
    return root / "bivlc.csv"


ARO_BOX = (8, 0, 160, 128)  # x, y, w, h: a box wider than tall, as most of Visual Genome's


ARO_RELATIONS = ("left of", "next to", "above")  # "next to" is one of the relations the authors call symmetric
ARO_PAIRS = 26 * [("red", "blue")] + [("green", "white")]  # one pair seen 25 times or more, one pair too rare


def aro(root: Path) -> Path:
    """``visual_genome_relation.json`` (6 items over ``ARO_RELATIONS``) and ``visual_genome_attribution.json`` (27
    items over ``ARO_PAIRS``) with ``images/``: each item a box of its picture (``ARO_BOX``) with a true and a false
    caption, its relation or attribute pair named as ARO's files name them."""
    for file, kind, n in (("visual_genome_relation.json", "relation", 6),
                          ("visual_genome_attribution.json", "attribute", len(ARO_PAIRS))):
        rows = []
        for i, item in enumerate(world.swap_items("id", kind, n)):
            name = save(item.images[0], root / "images" / f"{kind}_{i}.jpg")
            x, y, w, h = ARO_BOX
            named = ({"relation_name": ARO_RELATIONS[i % 3]} if kind == "relation"
                     else {"attributes": list(ARO_PAIRS[i])})
            rows.append({"image_id": i, "image_path": name, "bbox_x": x, "bbox_y": y, "bbox_w": w, "bbox_h": h,
                         "true_caption": item.captions[0], "false_caption": item.captions[1], **named})
        dump(root / file, rows)
    return root


def cosines(encoder, images: list[Image.Image], captions: list[str]) -> np.ndarray:
    """``s[c, i]``: cosine of caption c and image i, as the authors' scripts compute it (``encode_image``,
    ``encode_text``, normalized, dot product)."""
    return encoder.embed_texts(captions).numpy() @ encoder.embed_images(images).numpy().T
