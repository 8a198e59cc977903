"""``eval --models A,B,...``: every model against every benchmark (``--benchmarks``, else ``--benchmark``), one
leaderboard of headline figures with intervals and each model's paired difference from the first with McNemar's
exact p (``explorer.eval.leaderboard``), printed as JSON and with ``--json`` written as JSON, CSV and HTML."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from typing import Any, Callable, Sequence

from explorer.commands.model_args import named_spec
from explorer.core.settings import use
from explorer.eval.benchmark_registry import BENCHMARKS, WORLD_LIMIT
from explorer.eval.reported_check import TOLERANCE


def add_models_arguments(e: argparse.ArgumentParser) -> None:
    e.add_argument("--models", metavar="A,B,...",
                   help="several models scored on the same items, each named as --compare takes it (world-clip, "
                        "world-clip-finetune, 'ViT-B-32 / openai', a weights file): one table of models x "
                        "benchmarks x headline figures (each paper's figure, with its 95%% interval) and each "
                        "model's paired difference from the first with McNemar's exact p; --json writes it as JSON, "
                        "JSON.csv (the table), JSON-paired.csv and a leaderboard page JSON.html. No resume")
    e.add_argument("--check-reported", nargs="?", type=float, const=TOLERANCE, metavar="POINTS",
                   help="with --models, check each zoo model's figure (global cosine) against the one its source "
                        "reports (docs/zoo.md; SugarCrepe: the mean of its categories, Winoground: the group "
                        f"score): fails before scoring, saying what is missing, where a model's weights are neither "
                        f"here nor reachable on the model hub, and after it where a figure is more than POINTS "
                        f"(default {TOLERANCE:g}) from the reported one")
    e.add_argument("--benchmarks", metavar="B,C,...",
                   help="with --models, several benchmarks in one table (default: --benchmark); at most one of them "
                        "read from files (--data)")


def benchmarks_asked(args: argparse.Namespace) -> list[str]:
    names = (args.benchmarks or args.benchmark).split(",")
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        raise SystemExit(f"unknown benchmark {unknown[0]!r}; known: {', '.join(BENCHMARKS)}")
    public = [n for n in names if BENCHMARKS[n].from_files]
    if len(public) > 1:
        raise SystemExit(f"--benchmarks reads one benchmark from files (--data), got {', '.join(public)}")
    if public and not args.data:
        raise SystemExit(f"--data PATH is needed for {public[0]}: the benchmark's files in its own layout")
    return names


def model_names(models: str) -> list[str]:
    """``--models``' names, each once; ``SystemExit`` for fewer than two or a name given twice."""
    names = [m.strip() for m in models.split(",")]
    if len([n for n in names if n]) < 2 or not all(names):
        raise SystemExit(f"--models takes two models or more, each named, got {models!r}")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise SystemExit(f"--models names {', '.join(twice)} more than once: name each model once")
    return names


def checked_specs(names: Sequence[str], settings) -> dict[str, Any]:
    """Each model's ``EncoderSpec``, every one found and its weights opened before anything is scored
    (``ModelUnavailable`` in the model's own sentence for the first that would not load)."""
    from explorer.models.loader import check_encoder

    specs = {name: named_spec(name, settings) for name in names}
    for spec in specs.values():
        check_encoder(spec)
    return specs


def run_models(args: argparse.Namespace, options: dict[str, dict], config: Callable[[Any], dict]) -> int:
    """The leaderboard of ``--models`` on ``--benchmarks``; ``options``: each method's (``--set``); ``config``: what a
    rerun must share with the run whose outcomes it reads back, of a model's encoder."""
    from pathlib import Path

    from explorer.core.data_roots import DataAccess
    from explorer.core.shards import Shards
    from explorer.eval.leaderboard import evaluate_models
    from explorer.eval.leaderboard_report import write_leaderboard
    from explorer.eval.reported_check import check_rows, verdict
    from explorer.methods import get_method
    from explorer.models.loader import load_encoder

    settings = use(replace(args.settings, view=args.view or args.setting_view))  # first: kept even on a refusal
    if args.compare:
        raise SystemExit("--models and --compare do not go together: the first of --models is every other's A")
    names, benchmarks = model_names(args.models), benchmarks_asked(args)
    if args.limit is not None and args.limit < 1:
        raise SystemExit(f"--limit must be at least 1, got {args.limit}")
    if args.check_reported is not None:
        refuse_unchecked(names, benchmarks, args.methods.split(","))
    specs = checked_specs(names, settings)
    run_dir = Path(args.run_dir or f"{args.json}.shards") if args.run_dir or args.json else None

    def loader(number: int, name: str):
        def load() -> tuple[list, Shards]:
            encoder = load_encoder(specs[name])
            kept = Shards(folder=run_dir / f"model-{number}", config=config(encoder)) if run_dir else Shards()
            return [get_method(m, encoder, **options.get(m, {})) for m in args.methods.split(",")], kept
        return load

    limit = args.limit if args.limit is not None or all(BENCHMARKS[b].from_files for b in benchmarks) else WORLD_LIMIT
    report = evaluate_models([(n, loader(i, n)) for i, n in enumerate(names)], benchmarks, limit,
                             args.split.split(","), args.data, args.images, DataAccess(outside=args.allow_outside),
                             args.view, args.strict_ties)
    report = {"limit": limit, **report}
    if args.check_reported is not None:
        report["reported_check"] = check_rows(report, args.check_reported)
    print(json.dumps(report, indent=2))
    if args.json:
        write_leaderboard(report, Path(args.json))
    if args.check_reported is None:
        return 0
    print(verdict(report["reported_check"], args.check_reported), file=sys.stderr)
    return 0 if all(r["agrees"] for r in report["reported_check"]) else 1


def refuse_unchecked(names: list[str], benchmarks: list[str], methods: list[str]) -> None:
    """``SystemExit`` naming everything ``--check-reported`` lacks (weights, the model hub, a benchmark or model with
    a reported figure), before anything is scored."""
    from explorer.eval.reported_check import needs
    from explorer.models.load_problems import hub_resolves

    missing = needs(names, benchmarks, methods, hub_resolves)
    if missing:
        raise SystemExit("--check-reported cannot check here: " + "; ".join(missing) + ".")
