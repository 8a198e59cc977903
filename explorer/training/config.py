"""The training configs, the single source of truth for how a model is trained.

A field made with ``option(...)`` is also a command-line flag (``coverage`` -> ``--coverage``): the CLI's flags, their
defaults and help (``add_flags``), the command a model card prints (``command_line``) and the recipe names of
``scripts/recipe_sweep.py`` (``recipe_fields``) are all read from these fields.
"""

from __future__ import annotations

import argparse
import dataclasses
import types
import typing
from dataclasses import dataclass, field

from explorer import world
from explorer.models.checkpoints import ALIGN_VARIANTS
from explorer.models.model_configs import EMBEDDED_MODEL

OBJECTIVES = ("clip", "powerclip")
PRECISIONS = ("fp32", "bf16")
VARIANTS = tuple(ALIGN_VARIANTS)


def option(default, help: str, *, always: bool = False, choices: tuple | None = None, metavar: str | None = None,
           recipe: str | None = None):
    """A config field that is also a flag. ``always``: a card's command names it even at its default (otherwise
    only when it differs); ``recipe``: its letter in a recipe name of the sweep."""
    return field(default=default, metadata={"help": help, "always": always, "choices": choices, "metavar": metavar,
                                            "recipe": recipe})


@dataclass
class TrainConfig:
    """``train-world``: a world dual encoder trained from scratch."""

    model: str = EMBEDDED_MODEL
    coverage: float = option(world.DEFAULT_COVERAGE, "fraction of colour-shape objects seen in training; the rest are "
                                                         "held out, what the heldout split asks about", always=True)
    seed: int = option(0, "seed of the weights and of every batch", always=True, recipe="s")
    steps: int = option(2000, "optimizer steps", always=True)
    batch_size: int = option(128, "scenes per step", always=True)
    lr: float = option(1e-3, "peak learning rate (AdamW, warm-up then cosine decay)", always=True)
    warmup: int = 150
    weight_decay: float = 0.1
    threads: int = option(2, "torch threads (two runs of one thread each share 2 cores)")
    checkpoint_every: int = 50
    objective: str = option("clip", "clip: the CLIP loss; powerclip: plus the NLA powerset triplet loss (PowerCLIP)",
                            always=True, choices=OBJECTIVES)
    powerclip_lambda: float = option(1.0, "with --objective powerclip: lambda, the weight of the triplet term",
                                     metavar="LAMBDA")
    partial_captions: float = option(0.0, "how often a caption names only the colour or only the shape of an object",
                                     recipe="p")
    grey_images: float = option(0.0, "how often a training scene is black and white, captioned without colours",
                                recipe="g")
    unnamed_colours: float = option(0.0, "how often a training scene's objects are painted in random colours outside "
                                         "the palette, captioned without colours", recipe="u")
    varied_renders: float = option(0.0, "how often a training scene is drawn in a varied look: any background but a "
                                        "held-out band, line drawings, smooth edges, noise, JPEG, other sizes, tilts, "
                                        "triangles and stars in other proportions (world.looks)", recipe="v")
    extra_concepts: int = option(0, "also train on objects of the first K training-only colours and shapes "
                                    "(world.EXTRA_COLORS, EXTRA_SHAPES)", metavar="K", recipe="k")
    benchmark_share: float | None = option(None, "with --extra-concepts: draw an object from the benchmark's own "
                                                 "colours and shapes with probability F (default: every training "
                                                 "object as often as any other)", metavar="F", recipe="b")
    object_space: str | None = option(None, "train on a COLOURSxSHAPES object space (e.g. 16x12: the benchmark's "
                                            "colours and shapes, then training-only ones), --coverage of its objects, "
                                            "for the coverage sweep (default: the benchmark's 8x4)", metavar="CxS")
    init: str | None = option(None, "start from this checkpoint's weights (a train-world safetensors file) with a "
                                    "fresh optimizer and schedule, instead of a random initialisation", metavar="PATH")
    precision: str = option("fp32", "bf16: run the towers under bf16 autocast, weights, loss and optimizer in fp32 "
                                    "(1.8x faster per step on 2 cores with AMX, scripts/train_step_bench.py): for a "
                                    "GPU or a CPU with AMX or AVX512-BF16; a CPU without them emulates bf16 about 13x "
                                    "slower than fp32, so keep fp32 there", choices=PRECISIONS)


@dataclass
class AlignTrainConfig:
    """``train-align``: TFLocal, TFGlobal or the fine-tuned baseline over an encoder."""

    variant: str = option("local", "what is trained: the TFLocal or TFGlobal aligner, or the whole encoder",
                          always=True, choices=VARIANTS)
    seed: int = option(0, "seed of the weights and of every batch", always=True)
    steps: int = option(1200, "optimizer steps", always=True)
    batch_items: int = option(16, "swap items (or image-caption pairs) per step, over all ranks under torchrun",
                              always=True)
    micro_items: int | None = option(None, "items per forward pass; each rank accumulates gradients over its share "
                                           "of the step, the same step in less memory: set it when a step does not "
                                           "fit (default: the whole share at once)")
    lr: float = 3e-4  # aligners; fine-tuning uses finetune_lr
    finetune_lr: float = 3e-5
    warmup: int = option(100, "steps of linear learning-rate warm-up")
    weight_decay: float = 0.1
    threads: int = option(2, "torch threads, per rank")
    checkpoint_every: int = 50
    coverage: float = world.DEFAULT_COVERAGE
    varied_renders: float = option(0.0, "how often a training swap item's two scenes are drawn in one varied look "
                                        "(world.looks), as train-world --varied-renders draws its scenes")
    data: str | None = option(None, "a COCO-style captions JSON to train on instead of the world, {\"images\": "
                                    "[{id, file_name}], \"annotations\": [{image_id, caption}]}, each caption's hard "
                                    "negatives the swaps the caption parser proposes; needs --out")
    images: str | None = option(None, "the folder of the JSON's file_name entries (default: beside the JSON)")


def options(cls: type) -> list[dataclasses.Field]:
    """The fields of a config that are flags, in order."""
    return [f for f in dataclasses.fields(cls) if "help" in f.metadata]


def flag(f: dataclasses.Field) -> str:
    return "--" + f.name.replace("_", "-")


def value_type(cls: type, name: str) -> type:
    """The type a field's value is read as (``float`` for ``float | None``)."""
    hint = typing.get_type_hints(cls)[name]
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        return next(t for t in typing.get_args(hint) if t is not type(None))
    return hint


def add_flags(parser: argparse.ArgumentParser, cls: type) -> None:
    """One flag per option field: its type, default, choices and help."""
    for f in options(cls):
        meta = f.metadata
        help = (meta["help"] if "(default" in meta["help"] or f.default is None
                else f"{meta['help']} (default %(default)s)")
        extra = {k: meta[k] for k in ("choices", "metavar") if meta[k] is not None}
        parser.add_argument(flag(f), type=value_type(cls, f.name), default=f.default, help=help, **extra)


def from_args(cls: type, args: argparse.Namespace):
    """The config the parsed flags describe (the other fields at their defaults)."""
    return cls(**{f.name: getattr(args, f.name) for f in options(cls)})


def command_line(cls: type, cfg: dict) -> str:
    """The flags that give ``cfg`` (a recorded config): those always named, then those away from their default."""
    out = ""
    for f in options(cls):
        value = cfg.get(f.name, f.default)
        if f.metadata["always"] or value != f.default:
            out += f" {flag(f)} {value}"
    return out


def recipe_fields(cls: type = TrainConfig) -> dict[str, str]:
    """Recipe letter -> field: ``k16-g0.25`` is ``extra_concepts=16, grey_images=0.25``."""
    return {f.metadata["recipe"]: f.name for f in options(cls) if f.metadata["recipe"]}
