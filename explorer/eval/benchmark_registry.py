"""Every benchmark by name: how its items are made (the world's drawn per split, the public ones read from files)
and how its scores are summed up. The CLI's ``--benchmark``, the Browse tab and the evaluation all read this one list.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

from explorer import world
from explorer.core import cancel, settings
from explorer.core.data_roots import DataAccess, OutsideRoots, confined
from explorer.core.items import Item
from explorer.eval.dataset_loaders import DatasetError, load_aro, load_bivlc, load_sugarcrepe, load_winoground
from explorer.eval.layouts import aro, colorswap, eqben, mmvp, spec, sugarcrepe_pp, valse, vismin, whatsup
from explorer.eval.pairs import load_pairs, read_pairs
from explorer.world import published, published_minimal

log = logging.getLogger(__name__)
MANY_IMAGE_ROOTS = ("valse",)  # benchmarks whose authors' config reads images from several folders
AUTHORS = "raw"  # how every public benchmark's official script reads a picture: the model's own preprocess
WORLD_LIMIT = 200  # an evaluation's world items per split and kind unless asked otherwise (public ones: every item)


@dataclass(frozen=True)
class Benchmark:
    """``load(data, images, limit)`` for a public benchmark's files, or ``load(split, limit)`` for a world split."""

    name: str
    load: Callable[..., list[Item]]
    from_files: bool = True  # read from --data; else drawn from the world, one split at a time
    metric: str = "accuracy"  # what the hit rate of an item with one image is called
    overall: bool = True  # an "all" cell of every kind together beside each kind's
    chunk: int = 32  # items scored together (and the unit of sharding): the batches a method encodes
    skipped: Callable[[Path], list[str]] | None = None  # the rows of its files it leaves out, said to the user
    # scores beside each kind's where its authors count more than these: (items, {METHOD: outcomes}, encoder) ->
    # {METHOD or an entry of its own: {KIND: scores}}, merged into the results
    extras: Callable[[Sequence[Item], Mapping[str, Sequence[Any]], Any], dict] | None = None
    citation: str = ""  # whose benchmark, where published
    tests: str = ""  # what it tests, in a few words
    scores: str = ""  # its metric, in words
    headline: str = "pooled"  # its "all" cell: every item pooled, or (its paper's figure) the mean over its kinds
    # each item's group where its paper's figure per kind is the mean over groups (ARO's macro accuracy), else None
    groups: Callable[[Sequence[Item]], list[str | None]] | None = None
    first_wins_ties: bool = False  # its authors' argmax: a tie with the first caption (the right one) counts right
    reads: str | None = None  # the view its authors' script reads a picture in ("raw": the model's own preprocess,
    # which centre-crops), where it has authors' numbers to equal; None: the setting's view (``--view``)
    figure: str = ""  # the score of its "all" cell its paper reports where not the group score or ``metric``
    per_kind: bool = False  # its paper reports each kind's figure and none over all of them (ARO: each subset's)
    reported: tuple[str, ...] = ()  # the cells its paper reports as its headline where not "all" (SPEC: i2t, t2i)

    def reading(self, asked: str | None = None) -> str:
        """The view its pictures are read in: ``asked`` (``--view``), else its authors', else the setting's."""
        return asked or self.reads or settings.current().view

    @property
    def menu(self) -> str:
        """Its entry in a menu: name, citation, what it tests and its metric."""
        return " - ".join(p for p in (self.name, self.citation, self.tests, self.scores) if p)


def world_swaps(split: str, limit: int) -> list[Item]:
    """``limit`` swap items of each kind of one world split, kind after kind."""
    items: list[Item] = []
    for kind in world.KINDS:
        cancel.check()
        items += [replace(it, id=f"{split}/{kind}/{i}") for i, it in enumerate(world.swap_items(split, kind, limit))]
    return items


def world_single(split: str, limit: int) -> list[Item]:
    """``limit`` single-object images of one world split, each told among all objects' captions."""
    return [replace(it, id=f"{split}/single/{i}") for i, it in enumerate(world.single_items(split, limit))]


def world_naming(split: str, limit: int) -> list[Item]:
    """``limit`` single-object images of one world split per naming kind: its shape told from another shape, its
    colour from another colour (chance 50%)."""
    return [replace(it, id=f"{split}/{kind}/{i}")
            for kind in world.NAMING_KINDS for i, it in enumerate(world.naming_items(split, kind, limit))]


BENCHMARKS: dict[str, Benchmark] = {b.name: b for b in (
    Benchmark("world", world_swaps, from_files=False, citation="this project's synthetic world",
              tests="attribute, size, relation and object swaps on seen, held-out and shifted objects",
              scores="text, image and group (Winoground's)"),
    Benchmark("world-single", world_single, from_files=False, metric="top1", overall=False, chunk=64,
              citation="this project's synthetic world", tests="one object told among every object's caption",
              scores="top-1"),
    Benchmark("world-naming", world_naming, from_files=False, metric="top1", overall=False, chunk=64,
              citation="this project's synthetic world",
              tests="one object's shape told from another shape, its colour from another colour (chance 50%)",
              scores="top-1"),
    Benchmark("sugarcrepe", load_sugarcrepe, reads=AUTHORS, citation="Hsieh et al., NeurIPS 2023",
              tests="a caption against a hard negative that adds, replaces or swaps an object, attribute or relation",
              scores="accuracy"),
    Benchmark("winoground", load_winoground, reads=AUTHORS, citation="Thrush et al., CVPR 2022",
              tests="two images and two captions with the same words in another order",
              scores="text, image and group"),
    Benchmark("bivlc", load_bivlc, reads=AUTHORS, citation="Miranda et al., NeurIPS 2024 Datasets and Benchmarks",
              tests="SugarCrepe's negatives with a generated image for each", scores="text, image and group"),
    Benchmark("aro", load_aro, reads=AUTHORS, groups=aro.macro_groups, per_kind=True, citation="Yuksekgonul et al., ICLR 2023",
              tests="Visual Genome relations and attributions against their swaps",
              scores="macro accuracy (over relations, over attribute pairs); the pooled accuracy beside it"),
    Benchmark("colorswap", colorswap.load_colorswap, reads=AUTHORS, citation="Burapacheep et al., 2024",
              tests="colour words moved to other objects, Winoground's schema", scores="text, image and group"),
    Benchmark("whatsup", whatsup.load_whatsup, reads=AUTHORS, headline="mean", first_wins_ties=True,
              extras=whatsup.extras, citation="Kamath et al., EMNLP 2023",
              tests="spatial relations (left, right, on, under, in front, behind) in controlled and COCO/GQA images",
              scores="accuracy; pair and set accuracy on the controlled subsets; accuracy per preposition"),
    Benchmark("sugarcrepe-pp", sugarcrepe_pp.load_sugarcrepe_pp, reads=AUTHORS, metric="itt",
              extras=sugarcrepe_pp.extras,
              citation="Dumpala et al., NeurIPS 2024 Datasets and Benchmarks",
              tests="two captions meaning the same in other words against one hard negative",
              scores="ITT (both positives above the negative) and TOT (text encoder alone)"),
    Benchmark("valse", valse.load_valse, reads=AUTHORS, headline="mean", metric="pairwise",
              citation="Parcalabescu et al., ACL 2022",
              tests="existence, plurals, counting, relations, actions, coreference: a caption against its foil",
              scores="pairwise accuracy acc_r on the annotator-validated items"),
    Benchmark("eqben", eqben.load_eqben, reads=AUTHORS, citation="Wang et al., ICCV 2023",
              tests="two images with a visual-minimal change (video frames, Kubric, StableDiffusion)",
              scores="text, image and group"),
    Benchmark("pairs", load_pairs, skipped=lambda data: [str(row) for row in read_pairs(data)[1]],
              citation="your own file", tests="whatever your pairs swap", scores="text, image and group, or accuracy"),
)}


BENCHMARKS.update({b.name: b for b in (
    Benchmark("vismin", vismin.load_vismin, reads=AUTHORS, citation="Awal et al., NeurIPS 2024",
              tests="two images a minimal change apart: an object, an attribute, a spatial relation or a count",
              scores="text, image and group per category"),
    Benchmark("mmvp-vlm", mmvp.load_mmvp, reads=AUTHORS, figure="image", citation="Tong et al., CVPR 2024",
              tests="pairs of images CLIP embeds alike, in nine visual patterns, a statement each",
              scores="pair accuracy: both statements pick their own image (Winoground's image score)"),
    Benchmark("spec", spec.load_spec, reads=AUTHORS, overall=False, reported=spec.DIRECTIONS, first_wins_ties=True,
              extras=spec.extras, citation="Peng et al., CVPR 2024",
              tests="absolute and relative size and position, existence and count of an object, synthetic pictures",
              scores="image-to-text and text-to-image accuracy, each averaged over the six subsets"),
)})


def world_version(public: str, name: str, load: Callable[[str, int], list[Item]], idea: str, tests: str,
                  scores: str) -> Benchmark:
    """A public benchmark's idea on the world: its items drawn per split, its cells counted and named as the public
    one's (metric, figure, extras, an "all" cell or its paper's headline cells)."""
    b = BENCHMARKS[public]
    return Benchmark(name, load, from_files=False, metric=b.metric, figure=b.figure, extras=b.extras,
                     overall=b.overall, reported=b.reported, citation=idea, tests=tests, scores=scores)


WORLD_VERSIONS = (  # (public benchmark, name, items, whose idea and which of its parts, what it tests, its scores)
    ("colorswap", "world-colorswap", published.colorswap_items, "ColorSwap's idea on the world",
     "the two objects' colour words swapped, two pictures and two captions", "text, image and group"),
    ("whatsup", "world-whatsup", published.whatsup_items, "What'sUp's idea on the world",
     "one object left of, right of, above, below another", "accuracy among the four; pair and set accuracy"),
    ("sugarcrepe-pp", "world-sugarcrepe-pp", published.sugarcrepe_pp_items, "SugarCrepe++'s idea on the world",
     "the objects named in either order against a colour or shape swap", "ITT and TOT"),
    ("valse", "world-valse", published.valse_items, "VALSE's idea on the world (its relations and FOIL-it pieces)",
     "the preposition replaced; a shape not in the picture", "pairwise accuracy"),
    ("eqben", "world-eqben", published.eqben_items, "EqBen's idea on the world (its Kubric parts)",
     "two pictures a visual-minimal change apart: places traded, a colour changed, one more object",
     "text, image and group"),
    ("vismin", "world-vismin", published_minimal.vismin_items, "VisMin's idea on the world",
     "two pictures a minimal change apart: an object, an attribute, a relation, a count", "text, image and group"),
    ("mmvp-vlm", "world-mmvp", published_minimal.mmvp_items,
     "MMVP-VLM's idea on the world (its position, colour and count patterns)",
     "pairs of pictures one visual pattern apart, a caption each", "pair accuracy (the image score)"),
    ("spec", "world-spec", published_minimal.spec_items,
     "SPEC's idea on the world (relative position, size, existence, count)",
     "a picture among captions and a caption among pictures that differ in one thing",
     "image-to-text and text-to-image accuracy, each averaged over the subsets"),
)
BENCHMARKS.update({row[1]: world_version(*row) for row in WORLD_VERSIONS})


def benchmark(name: str) -> Benchmark:
    if name not in BENCHMARKS:
        raise ValueError(f"unknown benchmark {name!r}; known: {', '.join(BENCHMARKS)}")
    return BENCHMARKS[name]


def load_items(name: str, data: str | Path | None = None, limit: int | None = None,
               images: str | Path | Sequence[str | Path] | None = None,
               split: str | None = None, access: DataAccess = DataAccess(), view: str | None = None,
               strict_ties: bool = False) -> list[Item]:
    """A benchmark's items: ``limit`` per kind (per world split and kind, or per public category; the world's
    default 50); a world benchmark's ``split``, or all its test splits when None; a public one's files at ``data``,
    read as ``access`` allows (the CLI's by default: any data path, the paths its files name kept inside its folder).
    Each item holds the view its pictures are read in (``info["view"]``): ``view`` where asked, else its authors';
    and where its authors count a tie with the first caption right, that rule (``info["ties"]``) unless
    ``strict_ties``."""
    b = benchmark(name)
    if not b.from_files:
        items = [it for s in ([split] if split else world.SPLITS) for it in b.load(s, limit or 50)]
    else:
        with _reading(name, data, images, access) as (path, image_folder):
            items = b.load(path, image_folder, limit)
        log.info("%s: %d items from %s, read in the %s view", name, len(items), data, b.reading(view))
    marks = {"view": view or b.reads, "ties": "first" if b.first_wins_ties and not strict_ties else None}
    marks = {k: v for k, v in marks.items() if v}
    return [replace(it, info={**it.info, **marks}) for it in items] if marks else items


def left_out(name: str, data: str | Path | None, images: str | Path | None = None,
             access: DataAccess = DataAccess()) -> list[str]:
    """The rows of a benchmark's files that its loader leaves out (an own pairs file's bad rows), each in words."""
    b = benchmark(name)
    if b.skipped is None or not data:
        return []
    with _reading(name, data, images, access) as (path, _):
        return b.skipped(path)


@contextmanager
def _reading(name: str, data: str | Path | None, images: str | Path | Sequence[str | Path] | None,
             access: DataAccess) -> Iterator[tuple[Path, Path | tuple[Path, ...] | None]]:
    """The benchmark's data path and image folder (VALSE: folders) as ``access`` reads them, with every file read
    inside the block confined to the benchmark's folders; a path refused by ``access`` as a ``DatasetError`` naming
    nothing of it."""
    if not data:
        raise ValueError(f"{name} needs the path of its files (in the benchmark's own layout)")
    folders = [Path(f) for f in ([images] if isinstance(images, (str, Path)) else images or [])]
    if len(folders) > 1 and name not in MANY_IMAGE_ROOTS:
        raise DatasetError(f"{name} takes one image folder, got {len(folders)} (several only for "
                           f"{', '.join(MANY_IMAGE_ROOTS)})")
    try:
        path = access.typed(str(data))
        if not path.exists():
            raise DatasetError(f"{name}: no file or folder at {data}")
        bases = access.bases(path) + tuple(f.resolve() for f in folders)
        with confined(None if access.outside else bases):
            yield path, (tuple(folders) if name in MANY_IMAGE_ROOTS else folders[0] if folders else None)
    except OutsideRoots as exc:
        raise DatasetError(f"{name}: {exc}") from None
