"""Score methods on a benchmark and report each one's text, image and group scores (percent, with 95% bootstrap
intervals) per split and kind: the synthetic world (drawn on the fly, nothing to download; world-single: one object,
top-1 among every object's caption), a public benchmark read from its published files (--data), or your own pairs
(--benchmark pairs --data FILE). The report is printed as JSON; --json also writes it with a CSV and an HTML chart.
--compare NAME scores a second model on the same items: both models' results, and per method, split and kind the
paired difference of the group score (B - A) with its bootstrap interval and McNemar's exact p.
Under torchrun the items are sharded over the ranks; with --json a rerun resumes from what was already scored."""

from __future__ import annotations

import argparse
import ast
from dataclasses import replace
from functools import partial

from explorer.commands.common import SPLIT_HELP, add_flag, add_switch, print_report
from explorer.commands.eval_models import add_models_arguments, run_models
from explorer.commands.model_args import encoder_spec, model_command, named_spec
from explorer.core.settings import Settings, use
from explorer.eval.benchmark_registry import BENCHMARKS, WORLD_LIMIT, left_out

NAME = "eval"
METHODS = "global, sgi, tflocal, tfglobal, finetune, powerclip (or powerset)"  # named here without importing torch
COMPARISON_TEST = {"diff": "B - A, points of the group score (one image: top-1) on the items both models read",
                   "ci": "95% paired percentile bootstrap over items (the interval's resamples and seed)",
                   "mcnemar_p": "McNemar's exact two-sided p: binomial test of fixes among fixes + breaks, p = 0.5",
                   "mcnemar_p_holm": "mcnemar_p Holm-adjusted over every cell of the comparison (one family)"}


VIEW_HELP = ("what of a picture every method reads: whole (a picture that is not square padded to a square with its "
             "own background, a small drawing enlarged) or raw (the picture as it is: the model's preprocess "
             "centre-crops it). Default: a public benchmark as its authors' script reads it (raw, the model's own "
             "preprocess), so that its numbers are the authors'; the world and your own pairs as EXPLORER_VIEW says "
             "(whole unless set); docs/views.md")


def add_parser(sub, settings: Settings) -> argparse.ArgumentParser:
    e = model_command(sub, settings, NAME, "evaluate scoring methods on a benchmark", run, description=__doc__,
                      json="also write the report to this JSON file, with a CSV and an HTML bar chart beside it (same "
                           "name, .csv and .html), and keep each rank's per-item outcomes in JSON.shards/ so that a "
                           "rerun resumes")
    # unless asked, each benchmark is read as its own (a public one: as its authors' script), else as the setting says
    e.set_defaults(view=None, setting_view=settings.view)
    e._option_string_actions["--view"].help = VIEW_HELP
    e.add_argument("--benchmark", choices=list(BENCHMARKS), default="world",
                   help="world: two-object swaps of the synthetic world (attribute, size, relation, object); "
                        "world-single: one object, told among every object's caption; sugarcrepe, winoground, bivlc, "
                        "aro, colorswap, whatsup, sugarcrepe-pp, valse, eqben, vismin, mmvp-vlm, spec: the public "
                        "benchmarks, from their files in their authors' layouts, with their metrics (--data; "
                        "docs/benchmarks.md); world-colorswap, world-whatsup, ..., world-vismin, world-mmvp, "
                        "world-spec: each one's idea on the world; pairs: your own CSV or JSONL of "
                        "image, caption_a, caption_b[, image_b, category] (default %(default)s)")
    e.add_argument("--data", metavar="PATH",
                   help="the benchmark's files in its own published layout (a folder; for pairs, or a single table, "
                        "the file): needed for every benchmark but world and world-single; a missing or malformed "
                        "file is reported by name and field")
    e.add_argument("--images", metavar="DIR", action="append",
                   help="the folder of the images the benchmark's files name, where it is not the benchmark's own "
                        "(default: sugarcrepe's DATA/val2017, aro's DATA/images or DATA, ...); valse: repeatable, "
                        "each folder looked in after DATA (FOIL-it's COCO val2014 lies apart in its config.py); not "
                        "for pairs, whose image paths are relative to their file")
    add_switch(e, "--allow-outside",
               "follow image paths that a benchmark's files point outside its folder (absolute, '..' or a "
               "link leading out); without it each such row is refused and named by line, and the rest "
               "scored. Only for files you trust")
    add_switch(e, "--strict-ties",
               "count a tie with the right caption as a miss on every benchmark; by default What'sUp keeps "
               "its authors' argmax, where a tie with the first option (the right one) counts right. The "
               "report gives each What'sUp subset's ties either way")
    e.add_argument("--methods", default="global",
                   help=f"comma-separated scoring methods, compared in one run on the same items: {METHODS} "
                        f"(default %(default)s; their options: --set)")
    add_flag(e, "--split", f"{SPLIT_HELP}; the world's benchmarks only (default: the test splits, %(default)s)")
    add_flag(e, "--limit", f"items per split and kind of the world (default {WORLD_LIMIT}), or per category of a "
                           f"public benchmark (default: every item, as its official script scores them); the report "
                           f"records it", default=None)
    add_flag(e, "--run-dir", "where each rank keeps its per-item outcomes, read back by a rerun of the same "
                             "evaluation (default: JSON.shards beside --json; none without --json)")
    e.add_argument("--set", action="append", default=[], metavar="METHOD.OPTION=VALUE",
                   help="a method's option, e.g. sgi.crop_mode=resize (the published crop-and-resize SGI) or "
                        "tflocal.checkpoint=PATH (TFLocal weights of your own); VALUE is read as a Python literal "
                        "where it is one, else as text (repeatable)")
    e.add_argument("--compare", metavar="NAME",
                   help="a second model scored on the same items (B, against the model flags' A): a model menu "
                        "entry ('world-clip (embedded)', 'ViT-B-32 / openai'), a shipped checkpoint's name "
                        "(world-clip-finetune, world-clip-powerclip) or a weights file. The report gains its results "
                        "(results_b) and comparison[METHOD][SPLIT][KIND] = {a, b, diff, ci, mcnemar_p, "
                        "mcnemar_p_holm, n, fixes, breaks}: B - A in points of the group score, its 95%% paired "
                        "bootstrap interval over items (seed 0) and McNemar's exact p on the items one model gets "
                        "right and the other wrong (also Holm-adjusted over every cell)")
    e.add_argument("--interactions", type=int, metavar="N",
                   help="also read, method-independently, which object each colour-shape span binds to in the "
                        "model's token x patch interactions (as the interactions command reads it) on N world swap "
                        "items per split and kind, beside the same model with random weights (no binding): the "
                        "report's interactions; world only, each item takes seconds on a CPU")
    add_models_arguments(e)
    return e


def interaction_reading(args: argparse.Namespace, encoder) -> dict:
    """The interactions' binding reading on ``--interactions`` world items per split and kind (every kind)."""
    from explorer import world
    from explorer.commands.common import command
    from explorer.explain.interaction_binding import binding_report

    return binding_report(encoder, args.split.split(","), world.KINDS, args.interactions, command=command(args.argv))


def method_options(pairs: list[str]) -> dict[str, dict]:
    """``["sgi.crop_mode=resize", "sgi.scales=(1.0, 0.5)"]`` -> ``{"sgi": {"crop_mode": "resize", ...}}``."""
    out: dict[str, dict] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        method, dot, name = key.partition(".")
        if not (sep and dot and method and name):
            raise SystemExit(f"--set takes METHOD.OPTION=VALUE, got {pair!r}")
        try:
            value = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            value = raw
        out.setdefault(method, {})[name] = value
    return out


def eval_limit(benchmark: str, limit: int | None) -> int | None:
    """The items per category an evaluation scores: as asked, else the world's default size, else every item."""
    if limit is not None and limit < 1:
        raise SystemExit(f"--limit must be at least 1, got {limit}")
    return limit if limit is not None or BENCHMARKS[benchmark].from_files else WORLD_LIMIT


def shard_config(args: argparse.Namespace, encoder) -> dict:
    """What a rerun must share with the run whose shard files it reads back: the model and its weights (their
    digest), the methods and their options, the view and the code that scored them; the items' content is compared
    item by item (``explorer.eval.item_keys``)."""
    from explorer.core.shards import code_fingerprint
    from explorer.training.state import digest

    names = args.benchmarks or args.benchmark  # --models' --benchmarks, else the one
    return {"benchmark": names, "methods": args.methods, "set": args.set, "model": encoder.label,
            "weights": digest(encoder.model), "view": ",".join(BENCHMARKS[b].reading(args.view) for b in
                                                              names.split(",")), "code": code_fingerprint()}


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from explorer.core import distributed, intervals
    from explorer.core.data_roots import DataAccess
    from explorer.core.shards import Shards
    from explorer.eval.accuracy import evaluate
    from explorer.eval.compare import evaluate_pair
    from explorer.methods import get_method
    from explorer.models.loader import check_encoder, load_encoder

    asked = args.view  # None: each benchmark read as its own
    args.settings = use(replace(args.settings, view=asked or args.setting_view))  # first: kept even on a refusal
    if args.interactions is not None and (args.benchmark != "world" or args.interactions < 1 or args.models):
        raise SystemExit(f"--interactions N reads N >= 1 swap items of the world (--benchmark world) under one model "
                         f"(no --models), got {args.interactions} on {args.benchmark}")
    refuse_ignored(args)
    if args.models is not None:  # every model against every benchmark: a leaderboard
        return run_models(args, method_options(args.set), partial(shard_config, args))
    if BENCHMARKS[args.benchmark].from_files and not args.data:
        raise SystemExit(f"--data PATH is needed for {args.benchmark}: the benchmark's files in its own layout")
    spec_b = named_spec(args.compare, args.settings) if args.compare else None
    for spec in (encoder_spec(args.settings), spec_b):  # both found and opened before anything is scored
        if spec is not None:
            check_encoder(spec)
    with distributed.session() as ctx:
        encoder, options = load_encoder(encoder_spec(args.settings)), method_options(args.set)
        methods = [get_method(m, encoder, **options.get(m, {})) for m in args.methods.split(",")]
        run_dir = args.run_dir or (f"{args.json}.shards" if args.json else None)
        shards = Shards(ctx, Path(run_dir), shard_config(args, encoder)) if run_dir else Shards(ctx)
        limit = eval_limit(args.benchmark, args.limit)
        access, unreadable = DataAccess(outside=args.allow_outside), []
        compared: dict = {}
        if args.compare:
            other = load_encoder(spec_b)
            methods_b = [get_method(m, other, **options.get(m, {})) for m in args.methods.split(",")]
            shards_b = Shards(ctx, Path(run_dir) / "compare", shard_config(args, other)) if run_dir else Shards(ctx)
            results, results_b, comparison = evaluate_pair(
                methods, methods_b, args.benchmark, limit, args.split.split(","), args.data, args.images,
                shards=(shards, shards_b), access=access, left_out=unreadable, view=asked,
                strict_ties=args.strict_ties)
            compared = {"model_b": other.label, "comparison_test": COMPARISON_TEST, "results_b": results_b,
                        "comparison": comparison, **({"resumed_b": shards_b.resumed()} if run_dir else {})}
        else:
            results = evaluate(methods, args.benchmark, limit, args.split.split(","), args.data, args.images,
                               shards=shards, access=access, left_out=unreadable, view=asked,
                               strict_ties=args.strict_ties)
        report = {"benchmark": args.benchmark, "model": encoder.label, "limit": limit, "world_size": ctx.world_size,
                  "view": reading_said(args.benchmark, asked), "shards": shards.report(), "interval": intervals.METHOD,
                  "results": results, **compared}
        if BENCHMARKS[args.benchmark].first_wins_ties:
            report["ties"] = "a miss (--strict-ties)" if args.strict_ties else "the first option wins (the authors')"
        if run_dir:  # how many outcomes a rerun read back, and why the others were scored
            report["resumed"] = shards.resumed()
        if args.interactions and ctx.is_main:
            report["interactions"] = interaction_reading(args, encoder)
        if BENCHMARKS[args.benchmark].from_files:
            report["skipped"] = left_out(args.benchmark, args.data, args.images, access) + unreadable
    tables = ("results", "results_b", "comparison") if args.compare else ("results",)
    return print_report(report, args.json, tables) if ctx.is_main else 0


def refuse_ignored(args: argparse.Namespace) -> None:
    """``SystemExit`` for a flag this run would ignore: ``--check-reported`` or ``--benchmarks`` without
    ``--models``."""
    if args.models is None:
        for flag, given in (("--check-reported", args.check_reported is not None), ("--benchmarks", args.benchmarks)):
            if given:
                raise SystemExit(f"{flag} goes with --models (e.g. --models 'world-clip,OpenAI ViT-B-32'): without it "
                                 f"it would be ignored")


def reading_said(benchmark: str, asked: str | None) -> str:
    """The view the report's pictures were read in, in words."""
    b = BENCHMARKS[benchmark]
    view = b.reading(asked)
    if not asked and b.reads:
        return f"{view}: as its authors' script reads it (the model's own preprocess, which centre-crops)"
    return f"{view}: asked" if asked else f"{view}: the setting's"

