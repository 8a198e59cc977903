"""Examples for the page: world swap scenes and each published benchmark's idea on the world (made by
``make-examples``), and public-domain photos."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import skimage

from explorer import world
from explorer.world import published, published_minimal


def examples_dir() -> Path:
    """The page's example scenes: inside the package where it is installed (pyproject.toml's package-dir puts the
    root's assets/examples/ there), else the checkout's root folder, where make-examples writes them."""
    package = Path(__file__).resolve().parents[1]  # explorer/
    installed = package / "shipped" / "examples"
    return installed if installed.is_dir() else package.parent / "assets" / "examples"


EXAMPLES_DIR = examples_dir()
SKIMAGE_DATA = Path(skimage.__file__).parent / "data"

# Photos that ship with scikit-image (public domain / CC0), with a caption and its attribute swap.
PHOTOS = (
    ("cat (scikit-image 'chelsea')", "chelsea.png", "a brown cat with green eyes", "a green cat with brown eyes"),
    ("coffee (scikit-image)", "coffee.png", "a red cup on a wooden table", "a wooden cup on a red table"),
    ("astronaut (scikit-image)", "astronaut.png", "a woman in an orange suit holding a black helmet",
     "a woman in a black suit holding an orange helmet"),
    ("rocket (scikit-image)", "rocket.jpg", "a white rocket under a blue sky", "a blue rocket under a white sky"),
)


@dataclass(frozen=True)
class Example:
    name: str
    path: Path
    caption_a: str
    caption_b: str


DRAWN_EXAMPLES = ("drawn-white", "drawn-dark")  # drawings like a person's for a slide, besides the world's splits


def write_world_examples(folder: Path = EXAMPLES_DIR, size: int = 128) -> list[Path]:
    """One scene per swap kind and split (image 0 of the first item), and per kind on drawings on white and on a dark
    background, with its captions in index.json."""
    folder.mkdir(parents=True, exist_ok=True)
    index = []
    for split in world.SPLITS + DRAWN_EXAMPLES:
        for kind in world.KINDS:
            item = world.swap_items(split, kind, 1)[0]
            drawn = split.removeprefix("drawn-")
            name = f"world-{split}-{kind}.png"
            item.images[0].render(size).save(folder / name)
            index.append({"name": f"drawing on {drawn}: {kind} swap" if drawn != split
                                  else f"world: {kind} swap ({split})",
                          "file": name, "caption_a": item.captions[0], "caption_b": item.captions[1]})
    index += published_examples(folder, size)
    (folder / "index.json").write_text(json.dumps(index, indent=2) + "\n")
    return [folder / e["file"] for e in index]


# Each published benchmark's idea on the world (``world.published``): its first item's first picture, its own caption
# and (the caption index of) the foil the benchmark sets against it
PUBLISHED = {
    "ColorSwap": ("colorswap", published.colorswap_items, 1),
    "What'sUp": ("whatsup", published.whatsup_items, 1),
    "SugarCrepe++": ("sugarcrepe-pp", published.sugarcrepe_pp_items, 2),
    "VALSE": ("valse", published.valse_items, 1),
    "EqBen": ("eqben", published.eqben_items, 1),
    "VisMin": ("vismin", published_minimal.vismin_items, 1),
    "MMVP-VLM": ("mmvp", published_minimal.mmvp_items, 1),
    "SPEC": ("spec", published_minimal.spec_items, 1),
}


def published_examples(folder: Path, size: int = 128) -> list[dict]:
    """One scene per published benchmark's world version (split id), written to ``folder``; their index entries."""
    index = []
    for name, (stem, items, foil) in PUBLISHED.items():
        item = items("id", 1)[0]
        item.images[0].render(size).save(folder / f"world-{stem}.png")
        index.append({"name": f"{name} on the world: {item.kind}", "file": f"world-{stem}.png",
                      "caption_a": item.captions[item.right[0]], "caption_b": item.captions[foil]})
    return index


def examples() -> list[Example]:
    out = []
    index = EXAMPLES_DIR / "index.json"
    if index.is_file():
        for e in json.loads(index.read_text()):
            out.append(Example(e["name"], EXAMPLES_DIR / e["file"], e["caption_a"], e["caption_b"]))
    for name, file, a, b in PHOTOS:
        if (SKIMAGE_DATA / file).is_file():
            out.append(Example(name, SKIMAGE_DATA / file, a, b))
    return out
