"""What'sUp (Kamath, Hessel and Chang, EMNLP 2023): spatial relations, each image told among captions that differ
only in the preposition. Its repository's ``data/`` holds one JSON file per subset, the right caption always first:
``controlled_images_dataset.json`` (Controlled_Images_A: an object on, under, left of, right of another) and
``controlled_clevr_dataset.json`` (B: in front of, behind, left of, right of), lists of ``{image_path,
caption_options}`` with four options; ``coco_qa_{one,two}_obj.json`` and ``vg_qa_{one,two}_obj.json`` (COCO- and
GQA-spatial), lists of ``[image_id, caption, foil]`` over ``val2017/`` and ``vg_images/``. Scored as the authors do:
accuracy (top-1), and on the controlled subsets pair accuracy (both of left / right, both of on / under or in front
/ behind right), set accuracy (all four of an object pair's images right) and each subset's accuracy per
preposition."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Mapping, Sequence

from explorer.core.data_roots import OUTSIDE, OutsideRoots
from explorer.core.items import Item
from explorer.eval.dataset_loaders import DatasetError, ImageRef, _inner, _text, per_category
from explorer.eval.layouts import first_inside, grouped_shares, merged, read_list, shares
from explorer.world.published import WHATSUP_KIND

SUBSETS = {  # the authors' dataset names -> their files
    "Controlled_Images_A": "controlled_images_dataset.json",
    "Controlled_Images_B": "controlled_clevr_dataset.json",
    "COCO_QA_one_obj": "coco_qa_one_obj.json",
    "COCO_QA_two_obj": "coco_qa_two_obj.json",
    "VG_QA_one_obj": "vg_qa_one_obj.json",
    "VG_QA_two_obj": "vg_qa_two_obj.json",
}
# how the authors' evaluate_scores names each item's preposition for its per-preposition accuracy: the first of the
# subset's (text in the image path or caption, name) that matches, else its last name; one-object subsets: the
# caption's last word
RECORDED = {
    "Controlled_Images_A": ((("left_of", "left_of"), ("right_of", "right_of"), ("_on_", "on")), "under"),
    "Controlled_Images_B": ((("left_of", "left_of"), ("right_of", "right_of"), ("_in-front_of_", "in-front_of")),
                            "behind"),
    "COCO_QA_two_obj": ((("left of", "left"), ("right of", "right"), ("above", "above")), "below"),
    "VG_QA_two_obj": ((("left of", "left"), ("right of", "right"), ("front of", "front"), ("behind", "behind")), "top"),
}
OPPOSITES = {"Controlled_Images_A": ("on", "under"), "Controlled_Images_B": ("in-front", "behind"),
             WHATSUP_KIND: ("above", "below")}  # the world's version (explorer.world.published)


def _recorded(subset: str, text: str) -> str:
    """The preposition the authors group an item by: ``text`` is its image path (controlled) or caption."""
    if subset not in RECORDED:
        return text.split()[-1] if text.split() else ""
    tried, last = RECORDED[subset]
    return next((name for key, name in tried if key in text), last)


def _controlled(rows: list, name: str, subset: str, root: Path) -> list[Item]:
    items = []
    for n, row in enumerate(rows):
        where = f"{name}: item {n}"
        path = _text(row, "image_path", where)
        options = row.get("caption_options")
        if not isinstance(options, list) or len(options) < 2 or not all(isinstance(c, str) for c in options):
            raise DatasetError(f"{where}: field 'caption_options' should be a list of captions, the right one first")
        parts = Path(path).parts  # the path the authors' code opens from its repository root
        try:
            if Path(path).is_absolute() or ".." in parts:
                raise OutsideRoots(OUTSIDE)
            # the repository's data/ is ours: data/controlled_images/x first, then shorter, then as written
            ref = first_inside(root, [Path(*parts[k:]) for k in (*range(1, len(parts)), 0)])
        except OutsideRoots:
            raise DatasetError(f"{where}: its image path {OUTSIDE}") from None
        file = path.split("/")[-1]  # the authors' key: object_preposition[_of]_object.jpeg
        if len(file.split("_")) < 3:
            raise DatasetError(f"{where}: field 'image_path' should name OBJECT_PREPOSITION_OBJECT.jpeg, got {file!r}")
        info = {"pair": (file.split("_")[0], file.split("_")[-1][:-5]), "preposition": file.split("_")[1],
                "recorded": _recorded(subset, path)}
        items.append(Item(subset, (ImageRef(where, path=ref),), tuple(options), id=f"{subset}/{n}", info=info))
    return items


def _qa(rows: list, name: str, subset: str, root: Path) -> list[Item]:
    coco = subset.startswith("COCO")
    items = []
    for n, row in enumerate(rows):
        where = f"{name}: item {n}"
        if not isinstance(row, list) or len(row) != 3 or not all(isinstance(c, str) for c in row[1:]):
            raise DatasetError(f"{where}: expected [image_id, caption, foil], got {row!r}"[:300])
        file = f"val2017/{str(row[0]).zfill(12)}.jpg" if coco else f"vg_images/{row[0]}.jpg"  # as the authors open it
        try:
            ref = first_inside(root, [file])
        except OutsideRoots:
            raise DatasetError(f"{where}: its image path {OUTSIDE}") from None
        items.append(Item(subset, (ImageRef(where, path=ref),), (row[1], row[2]), id=f"{subset}/{n}",
                          info={"recorded": _recorded(subset, row[1])}))
    return items


def load_whatsup(data: Path, images: Path | None = None, limit: int | None = None) -> list[Item]:
    """Every What'sUp subset file present in ``data`` (or its ``data/``), a kind each; images under ``images`` or
    the data folder (``controlled_images/``, ``controlled_clevr/``, ``val2017/``, ``vg_images/``)."""
    data = Path(data)
    files = {s: data for s, f in SUBSETS.items() if data.is_file() and data.name == f}
    if not data.is_file():
        data = _inner(data, lambda p: any((p / f).is_file() for f in SUBSETS.values()))
        files = {s: data / f for s, f in SUBSETS.items() if (data / f).is_file()}
    if not files:
        raise DatasetError(f"no What'sUp subset file in {data} (expected {', '.join(SUBSETS.values())})")
    root = Path(images) if images else (data if data.is_dir() else data.parent)
    items: list[Item] = []
    for subset, path in files.items():
        read = _controlled if subset.startswith("Controlled") else _qa
        items += read(read_list(path), path.name, subset, root)
    return per_category(items, limit)


def pair_and_set(items: Sequence[Item], correct: Sequence[bool]) -> dict[str, dict]:
    """The authors' pair and set accuracy of each controlled subset: an object pair's two images along one axis
    both right, its four images all right, over half and a quarter of the subset's items."""
    out = {}
    for subset, (near, far) in OPPOSITES.items():
        marks: dict[tuple, dict[str, bool]] = defaultdict(dict)
        kept = [(it, ok) for it, ok in zip(items, correct) if it.kind == subset]
        for it, ok in kept:
            marks[it.info["pair"]][it.info["preposition"]] = bool(ok)
        if not kept:
            continue
        pairs = [bool(m.get(a) and m.get(b)) for m in marks.values() for a, b in (("left", "right"), (near, far))]
        sets = [sum(m.values()) == 4 for m in marks.values()]
        out[subset] = merged(shares("pair", pairs, sum(pairs) * 100 / (len(kept) / 2)),
                             shares("set", sets, sum(sets) * 100 / (len(kept) / 4)))
    return out


def by_preposition(items: Sequence[Item], correct: Sequence[bool]) -> dict[str, dict]:
    """The authors' per-preposition records: accuracy of each subset's items of one preposition, as ``SUBSET:
    PREPOSITION`` cells."""
    kept = [(f"{it.kind}: {it.info['recorded']}", ok) for it, ok in zip(items, correct) if "recorded" in it.info]
    cells = grouped_shares("accuracy", [k for k, _ in kept], [ok for _, ok in kept]) if kept else {}
    return {k: v for k, v in sorted(cells.items()) if k != "all"}


def ties(items: Sequence[Item], outcomes: Sequence) -> dict[str, dict]:
    """How many of each subset's items rest on a tie, the right caption level with the best other (to 6 places):
    right by the authors' argmax, a miss with ``--strict-ties``."""
    counts = Counter(it.kind for it, o in zip(items, outcomes) if o.margin == 0)
    return {kind: {"ties": counts.get(kind, 0)} for kind in dict.fromkeys(it.kind for it in items)}


def extras(items: Sequence[Item], found: Mapping[str, Sequence], encoder: object) -> dict:
    """Pair and set accuracy beside each method's accuracy on the controlled subsets, the accuracy of each subset's
    prepositions, and each subset's ties."""
    out = {}
    for name, outcomes in found.items():
        hits = [o.correct for o in outcomes]
        cells = pair_and_set(items, hits)
        out[name] = {**{k: merged(cells.get(k, {}), v) for k, v in ties(items, outcomes).items()},
                     **by_preposition(items, hits)}
    return out
