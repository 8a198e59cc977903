"""Model cards: what a checkpoint is, how it was made, and what it scores, measured."""

from __future__ import annotations

import json
from pathlib import Path

from explorer import world
from explorer.eval.accuracy import evaluate
from explorer.methods import REGISTRY, get_method
from explorer.models import checkpoints, seed_standing
from explorer.models.encoders import DualEncoder
from explorer.models.loader import EncoderSpec, load_encoder
from explorer.models.model_configs import CHECKPOINTS_FOLDER
from explorer.training.align import RANDOM_NEGATIVES
from explorer.training.choice import choice_section
from explorer.training.config import AlignTrainConfig, TrainConfig, command_line
from explorer.world.space import BENCHMARK_SPACE, ObjectSpace


def score_table(results: dict, kinds=world.KINDS) -> str:
    """Markdown: split x kind, each cell text / image / group."""
    head = "| split | " + " | ".join(f"{k} (T / I / G)" for k in (*kinds, "all")) + " |"
    lines = [head, "|" + "---|" * (len(kinds) + 2)]
    for split, per_kind in results.items():
        cells = [f"{per_kind[k]['text']:.1f} / {per_kind[k]['image']:.1f} / {per_kind[k]['group']:.1f}"
                 for k in (*kinds, "all")]
        lines.append(f"| {split} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


CARD_SPLITS = world.SPLITS + world.DRAWN_SPLITS  # what a world encoder's card measures: its test splits, drawings


def measure(encoder: DualEncoder, limit: int = 500) -> dict:
    method = [get_method("global", encoder)]
    return {
        "single": evaluate(method, "world-single", limit, CARD_SPLITS)["global"],
        "swaps": evaluate(method, "world", limit, CARD_SPLITS)["global"],
        "limit": limit,
    }


def train_command(cfg: dict, checkpoint: Path, device: str | None = None) -> str:
    """The ``train-world`` command line that reproduces a run from its recorded config, on the kind of device its
    record names (``--device cuda`` or ``cpu``; no flag where the record names none)."""
    on = "" if device is None else " --device cuda" if "CUDA" in device else " --device cpu"
    shipped = checkpoints.by_path(checkpoint)
    if shipped is not None:  # as the repository names it, wherever the command that writes the card runs
        checkpoint = Path(CHECKPOINTS_FOLDER, shipped.path.name)  # checkpoints/NAME, installed or not
    out = "" if shipped == checkpoints.EMBEDDED else f" --out {checkpoint}"
    return f"python -m explorer train-world{command_line(TrainConfig, cfg)}{on}{out}"


def align_command(cfg: dict) -> str:
    """The ``train-align`` command line that reproduces a run from its recorded config."""
    return f"python -m explorer train-align{command_line(AlignTrainConfig, cfg)}"


def caption_line(cfg: dict) -> str:
    """How the training captions and pictures depart from the plain template, where they do."""
    parts = []
    if cfg.get("partial_captions"):
        parts.append(f"with probability {cfg['partial_captions']} an object of a list caption is named by its colour "
                     f"or its shape only")
    if cfg.get("grey_images"):
        parts.append(f"with probability {cfg['grey_images']} a scene is black and white and its caption names "
                     f"no colour")
    if cfg.get("unnamed_colours"):
        parts.append(f"with probability {cfg['unnamed_colours']} a scene's objects are painted in random colours at "
                     f"least {world.PAINT_MIN_DISTANCE:.0f} (RGB) from every palette colour and the background, "
                     f"and its caption names no colour")
    if cfg.get("varied_renders"):
        parts.append(f"with probability {cfg['varied_renders']} a scene is drawn in a varied look (`world.looks`): a "
                     f"background of any grey from black to white or any colour outside the held-out hues, its "
                     f"objects' paints moved up to {world.looks.PAINT_JITTER} per channel, and each of: line drawing "
                     f"(0.15), smooth edges (0.5), pixel noise (0.3), a JPEG round trip (0.3), another image size "
                     f"(0.4), objects turned up to 15 degrees (0.3); the `style` split's backgrounds (hues "
                     f"{world.looks.HELD_OUT_HUES[0]} to {world.looks.HELD_OUT_HUES[1]}, two-colour gradients) "
                     f"are never drawn")
    if cfg.get("extra_concepts"):
        k = cfg["extra_concepts"]
        parts.append(f"the scenes also hold objects of {k} training-only colours "
                     f"({', '.join(list(world.EXTRA_COLORS)[:k])}) "
                     f"and {k} training-only shapes ({', '.join(world.EXTRA_SHAPES[:k])}), in every combination with "
                     f"each other and with the benchmark's colours and shapes, so that each colour meets many shapes "
                     f"and each shape many colours")
    if cfg.get("benchmark_share") is not None:
        parts.append(f"an object is one of the benchmark's own colours and shapes with probability "
                     f"{cfg['benchmark_share']}, else a training-only one")
    return f"Training data: {'; '.join(parts)}." if parts else ""


def init_line(cfg: dict, record: dict) -> str:
    """Where the weights started, when not from a random initialisation ("" then), ending its bullet; a record with a
    ``lineage`` (``scripts/record_lineage.py``) names each warm start that led to this run's starting weights."""
    if not cfg.get("init"):
        return ""
    if "lineage" not in record:
        return (f"- Started from the weights of `{cfg['init']}` (sha256 {record['init_sha256'][:12]}, a train-world "
                f"checkpoint with its own card), with a fresh optimizer, warm-up and schedule.\n")
    origin, *stages = record["lineage"]
    steps = "; ".join(f"{s['run']}: {s['steps']} steps, `--seed {s['seed']}`, {s['wall_s'] / 60:.1f} min "
                      f"(sha256 {s['sha256'][:12]})" for s in stages)
    return (f"- Started from {origin['what']} (sha256 {origin['sha256'][:12]}), then {len(stages)} warm starts before "
            f"this run, each with the flags above but its steps and seed, a fresh optimizer, warm-up and schedule "
            f"({origin['how']}): {steps}. This run started from the last of them; with it, the warm starts took "
            f"{(sum(s['wall_s'] for s in stages) + record['wall_s']) / 60:.1f} min.\n")


def precision_line(precision: str) -> str:
    """How the towers computed during training, in the card's words."""
    if precision == "bf16":
        return ("towers under bf16 autocast, patch embedding, loss, weights and optimizer in fp32 "
                "(`--precision bf16`)")
    return "fp32 throughout"


def objective_line(cfg: dict) -> str:
    """How the loss was made, in the card's words."""
    clip = "symmetric CLIP loss over in-batch pairs, no caption repeated within a batch"
    if cfg["objective"] == "powerclip":
        from explorer.training import powerclip

        weight = cfg.get("powerclip_lambda", powerclip.WEIGHT)
        return (f"Loss: the {clip}, plus lambda = {weight} times PowerCLIP's bidirectional triplet margin "
                f"loss (margin {powerclip.MARGIN}, hardest in-batch negative) on the NLA powerset score of the first "
                f"{powerclip.SUBSET} items of each batch: the scene's object masks on the patch grid against the "
                f"caption's tree nodes, NLA-soft (tau {powerclip.TAU}) text-to-region plus the NLA-r2t lower bound "
                f"(`explorer/training/powerclip.py`). Negatives are other scenes' captions, never constructed swaps.")
    return f"Loss: the {clip}; no hard negatives."


def recorded(record: dict, checkpoint: Path) -> dict:
    """The figures a record's last measurement wrote (for a card rewritten without measuring again)."""
    if "measured" not in record:
        raise ValueError(f"{checkpoint.with_suffix('.json')} holds no measured figures: run model-card without "
                         f"--from-record")
    return record["measured"]


def write_card(checkpoint: Path, title: str, limit: int = 500, remeasure: bool = True) -> Path:
    """Evaluate ``checkpoint`` (or, without ``remeasure``, take its recorded figures) and write ``<checkpoint>.md``
    beside it, from its ``.json`` training record."""
    record = json.loads(checkpoint.with_suffix(".json").read_text())
    if remeasure:
        encoder = load_encoder(EncoderSpec(record["config"]["model"], checkpoint=checkpoint))
        record["measured"] = measure(encoder, limit)
        checkpoint.with_suffix(".json").write_text(json.dumps(record, indent=2) + "\n")
    scores = recorded(record, checkpoint)
    limit = scores["limit"]
    cfg = record["config"]
    single = " | ".join(f"{s}: {scores['single'][s]['single']['top1']:.1f}%" for s in CARD_SPLITS
                        if s in scores['single'])
    space = ObjectSpace.parse(cfg["object_space"]) if cfg.get("object_space") else BENCHMARK_SPACE
    held = sorted(f"{c}-{s}" for c, s in space.heldout(cfg["coverage"]))
    in_space = f" of the {space.name} object space" if cfg.get("object_space") else ""
    text = f"""# {title}

`{checkpoint.name}`: {checkpoint.stat().st_size / 2**20:.1f} MiB, safetensors, {record['parameters']:,} parameters.
Made by `{train_command(cfg, checkpoint, record.get('device'))}` with torch {record['torch']} \
and open_clip {record['open_clip']}.

## Model
open_clip config `{cfg['model']}` (registered from `explorer/models/configs/`):

```json
{json.dumps(record['model_config'], indent=2)}
```

## Data and training
- The synthetic world (`explorer/world/`): 1 to 4 flat shapes on a grey background (1/2/3/4 objects
  with probabilities {', '.join(str(p) for p in world.N_OBJECTS_P)}), {len(world.COLORS)} colours x
  {len(world.SHAPES)} shapes x {len(world.SIZES)} sizes; template captions naming objects in random order
  (relations only for two objects). The `shift` split outlines every object, a look training never shows; the
  `style` split draws seen objects in looks no training stream uses; the `drawn-*` splits draw seen objects with
  another renderer (`world.drawings`) on white, light, grey and dark backgrounds.
  {' '.join(filter(None, [objective_line(cfg), caption_line(cfg)]))}
- Coverage {cfg['coverage']}: {space.size - len(held)} of {space.size} colour-shape objects{in_space} seen.
  Held out (never in training): {', '.join(held) or 'none'}.
- {cfg['steps']} steps x batch {cfg['batch_size']} = {record['images_seen']:,} images; AdamW lr {cfg['lr']},
  warm-up {cfg['warmup']}, cosine decay, weight decay {cfg['weight_decay']}; seed {cfg['seed']}; \
objective `{cfg['objective']}`;
  {precision_line(cfg.get('precision', 'fp32'))}.
{init_line(cfg, record)}- Wall time {record['wall_s'] / 60:.1f} min on \
{record.get('device', f"{cfg['threads']} CPU threads")}; final loss {record['final_loss']:.3f}.

{choice_section(record)}
{seed_standing.section(record)}## Measured (global cosine, {limit} items per split and kind)
Single-object retrieval among all {len(world.ALL_COMBOS)} objects' captions, top-1: {single}.

Swap items, text / image / group score in percent (chance of group: 16.7 for random scores):

{score_table(scores['swaps'])}

These are the phenomenon the explorer shows; nothing was tuned to raise or lower them.
"""
    out = checkpoint.with_suffix(".md")
    out.write_text(text)
    return out


def varied_swaps(cfg: dict) -> str:
    """How often an aligner's training items were drawn in a varied look, in the card's words ("" when never)."""
    share = cfg.get("varied_renders")
    return f"; with probability {share} an item's two scenes share one varied look (`world.looks`)" if share else ""


def trained_over_line(record: dict) -> str:
    """For aligners trained over a staged model before it shipped (``retrain_varied.sh ship-align``): which file."""
    if "trained_over" not in record:
        return ""
    return f"- Trained over {record['trained_over']}: `--checkpoint` that file, the command above otherwise.\n"


def write_align_card(checkpoint: Path, limit: int = 200, remeasure: bool = True) -> Path:
    """Evaluate a ``train-align`` checkpoint on the world with the embedded encoder (or, without ``remeasure``, take
    its recorded figures); write ``<checkpoint>.md``."""
    record = json.loads(checkpoint.with_suffix(".json").read_text())
    cfg = record["config"]
    method = REGISTRY[checkpoints.ALIGN_VARIANTS[cfg["variant"]]]
    if remeasure:
        scores = evaluate([get_method(method.name, load_encoder(), checkpoint=str(checkpoint))], "world", limit)
        record["measured"] = {"swaps": scores[method.name], "limit": limit}
        checkpoint.with_suffix(".json").write_text(json.dumps(record, indent=2) + "\n")
    figures = recorded(record, checkpoint)
    scores, limit = figures["swaps"], figures["limit"]
    what = ("the whole encoder, fine-tuned end to end (global cosine at inference)" if cfg["variant"] == "finetune"
            else f"the alignment transformer over the frozen encoder's "
                 f"{'patch and token' if cfg['variant'] == 'local' else 'global'} "
                 f"features: {json.dumps(record['align_config'])}")
    text = f"""# {checkpoint.stem}: {method.label} for {record['encoder']}

`{checkpoint.name}`: {checkpoint.stat().st_size / 2**20:.1f} MiB, safetensors; \
{record['trainable_parameters']:,} trainable parameters,
{what}. Made by `{align_command(cfg)}` with torch {record['torch']}.

## Data and training
- {cfg['steps']} steps x {cfg['batch_items']} swap items of random kinds (attribute, size, relation, object) over the
  world's {cfg['coverage']} coverage training objects, drawn from their own seeded stream \
(never the benchmark's){varied_swaps(cfg)}.
  Each step scores its {2 * cfg['batch_items']} images against their own caption, the swapped caption of the same
  item and {RANDOM_NEGATIVES} other captions of the batch; cross-entropy image -> caption and caption -> image.
- AdamW lr {cfg['finetune_lr'] if cfg['variant'] == 'finetune' else cfg['lr']}, warm-up {cfg['warmup']}, cosine decay,
  weight decay {cfg['weight_decay']}; seed {cfg['seed']}.
{init_line(cfg, record)}{trained_over_line(record)}- Wall time {record['wall_s'] / 60:.1f} min on \
{cfg['threads']} CPU threads; final loss {record['final_loss']:.3f}.

{choice_section(record)}
## Measured (`{method.name}`, {limit} items per split and kind)
Text / image / group score in percent:

{score_table(scores)}
"""
    out = checkpoint.with_suffix(".md")
    out.write_text(text)
    return out
