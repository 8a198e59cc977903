"""Command line: ``python -m explorer COMMAND``, or ``binding-explorer COMMAND`` once installed (``pip install .``);
each command imports only what it needs. ``app`` serves the page (``explorer/page.py``, as ``python app.py`` does)."""

from __future__ import annotations

import argparse
import ast
import json
import logging
import os
import sys
from pathlib import Path

from explorer import world
from explorer.eval.benchmark_registry import BENCHMARKS, WORLD_LIMIT, left_out
from explorer.models.checkpoints import ALIGN_VARIANTS, EMBEDDED_CHECKPOINT, for_variant
from explorer.core.data_roots import DataAccess
from explorer.models.loader import EncoderSpec, load_encoder
from explorer.model_args import encoder_spec, model_command
from explorer.core.settings import Settings, add_setting_flags, current, use
from explorer.training.config import AlignTrainConfig, TrainConfig, add_flags, from_args


def train_config(args: argparse.Namespace) -> TrainConfig:
    """The ``TrainConfig`` that ``train-world``'s flags describe."""
    return from_args(TrainConfig, args)


def _train_world(args: argparse.Namespace) -> int:
    from explorer.models.encoders import default_device
    from explorer.training.world_clip import train

    cfg = train_config(args)
    out = Path(args.out or EMBEDDED_CHECKPOINT)
    run_dir = Path(args.run_dir or f"runs/train-world-{args.objective}-c{args.coverage}-s{args.seed}")
    train(cfg, run_dir, out, args.device or default_device(), args.workers)
    if not args.no_card:
        _write_card(out, args.objective)
    return 0


def _write_card(checkpoint: Path, objective: str, remeasure: bool = True) -> Path:
    from explorer.training.card import write_card

    title = "world-clip: the embedded dual encoder" if checkpoint == EMBEDDED_CHECKPOINT else checkpoint.stem
    path = write_card(checkpoint, f"{title} ({objective} objective)", remeasure=remeasure)
    logging.getLogger(__name__).info("wrote %s", path)
    return path


def _train_align(args: argparse.Namespace) -> int:
    from explorer.core import distributed
    from explorer.training.align import train_align
    from explorer.training.card import write_align_card

    cfg = from_args(AlignTrainConfig, args)
    with distributed.session() as ctx:
        encoder = load_encoder(encoder_spec(args.settings))
        if args.out:
            out = Path(args.out)
        elif encoder.is_embedded and not args.data:
            out = for_variant(args.variant).path
        else:
            raise SystemExit("--out PATH is needed unless the embedded model is trained on the world")
        run_dir = Path(args.run_dir or f"runs/train-align-{args.variant}-{out.stem}-s{args.seed}")
        train_align(cfg, encoder, run_dir, out, ctx)
    if ctx.is_main and not args.no_card and not args.data:
        logging.getLogger(__name__).info("wrote %s", write_align_card(out))
    return 0


def _model_card(args: argparse.Namespace) -> int:
    from explorer.models.loader import resolve
    from explorer.training.card import write_align_card

    checkpoint = resolve(args.checkpoint)[0] or EMBEDDED_CHECKPOINT
    config = json.loads(checkpoint.with_suffix(".json").read_text())["config"]
    try:
        if "variant" in config:  # a train-align record
            logging.getLogger(__name__).info("wrote %s", write_align_card(checkpoint, remeasure=not args.from_record))
        else:
            _write_card(checkpoint, config["objective"], remeasure=not args.from_record)
    except ValueError as error:
        raise SystemExit(str(error)) from None
    return 0


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


def _shard_config(args: argparse.Namespace, encoder) -> dict:
    """What a rerun must share with the run whose shard files it reads back (the weights file by size and time, and
    the code that scored them)."""
    from explorer.core.shards import code_fingerprint

    weights = encoder.checkpoint.stat() if encoder.checkpoint else None
    return {"benchmark": args.benchmark, "data": args.data, "images": args.images, "methods": args.methods,
            "split": args.split, "limit": eval_limit(args.benchmark, args.limit), "set": args.set,
            "allow_outside": args.allow_outside, "model": encoder.label,
            "weights": [weights.st_size, weights.st_mtime_ns] if weights else None,
            "code": code_fingerprint()}


def _eval(args: argparse.Namespace) -> int:
    from explorer.core import distributed, intervals
    from explorer.eval.accuracy import evaluate
    from explorer.methods import get_method
    from explorer.core.shards import Shards

    if BENCHMARKS[args.benchmark].from_files and not args.data:
        raise SystemExit(f"--data PATH is needed for {args.benchmark}: the benchmark's files in its own layout")
    with distributed.session() as ctx:
        encoder, options = load_encoder(encoder_spec(args.settings)), method_options(args.set)
        methods = [get_method(m, encoder, **options.get(m, {})) for m in args.methods.split(",")]
        run_dir = args.run_dir or (f"{args.json}.shards" if args.json else None)
        shards = Shards(ctx, Path(run_dir) if run_dir else None, _shard_config(args, encoder))
        limit = eval_limit(args.benchmark, args.limit)
        access, unreadable = DataAccess(outside=args.allow_outside), []
        results = evaluate(methods, args.benchmark, limit, args.split.split(","), args.data, args.images, shards=shards,
                           access=access, left_out=unreadable)
        report = {"benchmark": args.benchmark, "model": encoder.label, "limit": limit, "world_size": ctx.world_size,
                  "shards": shards.report(), "interval": intervals.METHOD, "results": results}
        if BENCHMARKS[args.benchmark].from_files:
            report["skipped"] = left_out(args.benchmark, args.data, args.images, access) + unreadable
    return _print_report(report, args.json, ("results",)) if ctx.is_main else 0


def _pointing(args: argparse.Namespace) -> int:
    from explorer.explain.pointing import pointing_report

    report = pointing_report(load_encoder(encoder_spec(args.settings)), args.split.split(","), args.limit,
                             args.sources and args.sources.split(","), args.sanity, " ".join([prog(), *args.argv]))
    return _print_report(report, args.json, ("results", "swap_probe"))


def _print_report(report: dict, path: str | None, tables: tuple[str, ...] = ()) -> int:
    """Print a command's report, and write it to ``path`` when one is given, with a CSV of each of its ``tables``
    and an HTML chart of the first beside it (``accuracy_reports.write_reports``)."""
    from explorer.eval.accuracy_reports import write_reports

    print(json.dumps(report, indent=2))
    if path:
        write_reports(report, Path(path), tables)
    return 0


def _bench(args: argparse.Namespace) -> int:
    from dataclasses import replace

    import torch

    from explorer import speed_bench as bench

    encoder = load_encoder(encoder_spec(args.settings))
    figures = bench.sgi_figures(encoder, repeat=args.repeat)
    figures |= bench.analysis_figures(encoder, "embedded", runs=args.runs)
    if encoder.image_dtype is not None:  # the page's precision is not fp32 here: fp32's figures beside it
        reference = load_encoder(replace(encoder_spec(args.settings), precision="fp32"))
        figures |= bench.analysis_figures(reference, "embedded_fp32", runs=args.runs)
        figures |= bench.precision_figures(encoder, reference)
    figures |= bench.eval_figures(encoder, "embedded")
    figures |= bench.powerset_figures(encoder)
    figures |= bench.tflocal_figures(encoder)
    figures |= bench.explain_figures(encoder, "embedded")
    figures |= bench.parse_figures()
    figures["memory.peak_mb.embedded"] = bench.peak_memory_mb()
    registry = [("vitb32", "ViT-B-32")] * (not args.skip_vitb32)
    registry += [("vitl14", "ViT-L-14")] * (args.vitl14 or encoder.device.startswith("cuda"))
    for tag, name in registry:
        other = load_encoder(EncoderSpec(name, device=args.settings.device, precision=args.precision))
        figures |= bench.analysis_figures(other, tag, runs=max(3, args.runs // 4))
        figures |= bench.explain_figures(other, tag)
        figures[f"memory.peak_mb.{tag}"] = bench.peak_memory_mb()
    command = "python -m explorer bench" + "".join(
        f" {flag}" for flag, on in (("--device cuda", encoder.device.startswith("cuda")),
                                    ("--skip-vitb32", args.skip_vitb32), ("--vitl14", args.vitl14),
                                    (f"--precision {args.precision}", args.precision != "native")) if on)
    report = {"model": encoder.label, "device": encoder.device, "machine": bench.machine(), "command": command,
              "precision": {"setting": args.precision, "image tower": str(encoder.image_dtype or torch.float32),
                            "text tower": str(encoder.text_dtype or torch.float32)},
              "figures": figures}
    if args.markdown:
        beside = [json.loads(Path(p).read_text()) for p in args.beside]
        bench.write_performance_markdown(Path(args.markdown), [report, *beside])
    return _print_report(report, args.json)


def _binding(args: argparse.Namespace) -> int:
    from explorer.readings import binding_null

    report = binding_null.report(load_encoder(encoder_spec(args.settings)), " ".join([prog(), *args.argv]),
                                 args.colors, args.shapes, args.null_draws, args.renders,
                                 tuple(int(w) for w in args.widths.split(",")))
    return _print_report(report, args.json)


def _recognition(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from explorer.eval.recognition import STAGES, readings

    encoder = load_encoder(encoder_spec(args.settings))
    with tqdm(total=STAGES, desc="recognition", unit="stage") as bar:
        return _print_report({"model": encoder.label, "readings": readings(encoder, args.limit, args.probe_limit,
                                                                           tick=bar.update)}, args.json)


def _binding_sweep(args: argparse.Namespace) -> int:
    from explorer.world.space import ObjectSpace

    try:  # a bad space is refused before torch is loaded
        spaces = [ObjectSpace.parse(s).name for s in args.spaces.split(",")]
        coverages = [float(c) for c in args.coverages.split(",")]
    except ValueError as error:
        raise SystemExit(f"binding-sweep: {error}") from None
    from tqdm import tqdm

    from explorer.models.encoders import default_device
    from explorer.training.sweep import Cell, cell_budget, run_cell, summarize, write
    budget = cell_budget(args.steps, args.batch_size, args.precision)
    records, runs = Path(args.records), Path(args.runs)
    cells = [Cell(s, c, args.seed) for s in spaces for c in coverages]
    if not args.summary_only:
        for cell in tqdm(cells, desc="binding-sweep", unit="cell"):
            run_cell(cell, budget, runs, records, args.device or default_device(), args.items, args.workers,
                     args.threads)
    try:
        summary = write(summarize(records), Path(args.out), "python -m explorer " + " ".join(sys.argv[1:]))
    except ValueError as error:
        raise SystemExit(f"binding-sweep: {error}") from None
    print(json.dumps({k: summary[k] for k in ("correlation", "by_space", "by_probe")}, indent=2))
    return 0


def _make_examples(args: argparse.Namespace) -> int:
    from explorer.world.examples import write_world_examples

    print("\n".join(map(str, write_world_examples())))
    return 0


def prog() -> str:
    """How this command line was called: the installed console script, or ``python -m explorer``."""
    return "binding-explorer" if Path(sys.argv[0]).name == "binding-explorer" else "python -m explorer"


def build_parser(settings: Settings | None = None) -> argparse.ArgumentParser:
    """The command line, its settings' flags defaulting to ``settings`` (None: this process's)."""
    settings = settings or current()
    p = argparse.ArgumentParser(prog=prog(), description=__doc__)
    add_setting_flags(p, settings, ["log_level"])
    sub = p.add_subparsers(dest="command", required=True)

    t = sub.add_parser("train-world", help="train a world dual encoder from scratch (CLIP loss)")
    add_flags(t, TrainConfig)
    t.add_argument("--out", help=f"weights file to write (default {EMBEDDED_CHECKPOINT})")
    t.add_argument("--run-dir", help="where resumable state is kept (default runs/train-world-...)")
    t.add_argument("--device", help="cpu or cuda (default: cuda when present); the card records which")
    t.add_argument("--workers", type=int, default=0, help="processes drawing scenes ahead of the model "
                                                          "(default 0: in turn; worth 2 or more on a GPU)")
    t.add_argument("--no-card", action="store_true", help="skip measuring and writing the model card")
    t.set_defaults(func=_train_world)

    a = model_command(sub, settings, "train-align",
                      "train TFLocal, TFGlobal or the fine-tuned baseline over an encoder", _train_align)
    add_flags(a, AlignTrainConfig)
    a.add_argument("--out", help="weights file to write (default: the variant's shipped checkpoint, "
                                 + ", ".join(f"{v}: {for_variant(v).name}" for v in ALIGN_VARIANTS) + ")")
    a.add_argument("--run-dir", help="where resumable state is kept (default runs/train-align-...)")
    a.add_argument("--no-card", action="store_true", help="skip measuring and writing the model card")

    c = sub.add_parser("model-card", help="measure a trained checkpoint (train-world or train-align) and (re)write "
                                          "its model card")
    c.add_argument("--checkpoint", help=f"weights file with its .json record, or a shipped checkpoint's name "
                                      f"(default {EMBEDDED_CHECKPOINT})")
    c.add_argument("--from-record", action="store_true", help="rewrite the card from the figures its record holds")
    c.set_defaults(func=_model_card)

    e = model_command(sub, settings, "eval", "evaluate scoring methods on a benchmark", _eval,
                      json="write the report here, with a CSV and an HTML bar chart beside it")
    e.add_argument("--benchmark", choices=list(BENCHMARKS), default="world")
    e.add_argument("--data", help="the benchmark's folder or file (public benchmarks)")
    e.add_argument("--images", help="image folder, where it is not the benchmark's default")
    e.add_argument("--allow-outside", action="store_true", help="follow image paths that a benchmark's file names "
                   "outside its folder (absolute, '..' or a link out; refused by line without this flag)")
    e.add_argument("--methods", default="global", help="comma-separated registered methods")
    e.add_argument("--split", default=",".join(world.SPLITS),
                   help="comma-separated world splits: id, heldout, shift, style (test: to report; the default), "
                        "drawn-white, drawn-light, drawn-grey, drawn-dark (seen objects drawn by another renderer), or "
                        "any of them after val- (validation: to choose a recipe, seed or setting)")
    e.add_argument("--limit", type=int, default=None,
                   help=f"items per split and kind of the world (default {WORLD_LIMIT}), or per category of a public "
                        f"benchmark (default: every item, as its official script scores them)")
    e.add_argument("--run-dir", help="where each rank keeps its outcomes, read back by a rerun "
                                     "(default: JSON.shards beside --json; none without it)")
    e.add_argument("--set", action="append", default=[], metavar="METHOD.OPTION=VALUE",
                   help="a method option, e.g. sgi.crop_mode=resize (repeatable)")

    q = model_command(sub, settings, "pointing", "where each map source looks on world scenes, judged by the objects' "
                      "masks", _pointing, json="write the report here, with CSVs and an HTML bar chart beside it")
    q.add_argument("--split", default=",".join(world.SPLITS), help="comma-separated world splits, as eval's")
    q.add_argument("--limit", type=int, default=WORLD_LIMIT, help="swap items per split and kind (default %(default)s)")
    q.add_argument("--sources", help="comma-separated map sources (default: every one that applies to the model)")
    q.add_argument("--sanity", type=int, default=0, metavar="N", help="also the randomization check over N pictures")

    b = model_command(sub, settings, "bench", "speed figures, measured side by side in one run", _bench,
                      json="write the figures here", precision="native")  # the page's precision
    b.add_argument("--repeat", type=int, default=3, help="runs per SGI timing (the best is kept)")
    b.add_argument("--runs", type=int, default=20, help="analyzes timed for the p50 / p95 latencies")
    b.add_argument("--skip-vitb32", action="store_true", help="skip the ViT-B-32-sized (random weights) figures")
    b.add_argument("--vitl14", action="store_true",
                   help="also time ViT-L-14 (random weights) on the CPU, where it takes minutes (on CUDA: always)")
    b.add_argument("--markdown", help="also write the figures as a table, e.g. docs/PERFORMANCE.md (the file's "
                                      "'## Where the time goes' section onwards is kept)")
    b.add_argument("--beside", action="append", default=[], metavar="JSON",
                   help="another device's report (--json of a run there) shown as a column beside this run's")

    g = model_command(sub, settings, "binding", "binding-geometry analyzes of a model on two-object world scenes",
                      _binding, json="write the figures here")
    g.add_argument("--colors", type=int, default=8)
    g.add_argument("--shapes", type=int, default=3, help="8 x 3 = the 24-object grid of the binding paper")
    g.add_argument("--null-draws", type=int, default=20, help="null tables (additive structure plus noise matched "
                                                              "to the swap cosine) measured beside each figure")
    g.add_argument("--renders", type=int, default=8,
                   help="new drawings of each swap pair for the swaps told apart (0: the scene table's own scenes)")
    g.add_argument("--widths", default="16,64,256", help="probe widths chosen from on validation scenes")

    r = model_command(sub, settings, "recognition", "where held-out objects are lost: readings by caption sets, "
                      "black-and-white pictures and linear probes (docs/recognition.md)", _recognition,
                      json="write the readings here")
    r.add_argument("--limit", type=int, default=500, help="held-out single-object images")
    r.add_argument("--probe-limit", type=int, default=600, help="seen single-object images the probes are fitted on")

    w = sub.add_parser("binding-sweep", help="the binding paper's coverage sweep: world encoders over object spaces "
                                             "and coverages; held-out recognition against the multiplicative fit")
    w.add_argument("--spaces", default="8x4,16x12", help="object spaces, COLOURSxSHAPES (default %(default)s)")
    w.add_argument("--coverages", default="0.25,0.4,0.55,0.7,0.85", help="(default %(default)s)")
    w.add_argument("--seed", type=int, default=0)
    w.add_argument("--steps", type=int, help="optimizer steps per cell (default: the shipped recipe's)")
    w.add_argument("--batch-size", type=int, help="scenes per step (default: the shipped recipe's)")
    w.add_argument("--precision", choices=("bf16", "fp32"), help="(default: the recipe's bf16) fp32 is its own budget")
    w.add_argument("--items", type=int, default=500, help="held-out single-object images per cell")
    w.add_argument("--device", help="cpu or cuda (default: cuda when present)")
    w.add_argument("--workers", type=int, default=0, help="processes drawing the training scenes ahead of the model")
    w.add_argument("--threads", type=int, default=TrainConfig.threads,
                   help="torch threads per cell (default %(default)s); two sweeps of one thread each share 2 cores")
    w.add_argument("--records", default="docs/results/coverage-sweep",
                   help="one record per finished cell; a recorded cell is not trained again (default %(default)s)")
    w.add_argument("--runs", default="runs/coverage-sweep", help="weights and resumable state (default %(default)s)")
    w.add_argument("--summary-only", action="store_true", help="train nothing: summarize the recorded cells")
    w.add_argument("--out", default="docs", help="where coverage-sweep.csv, .json and .html go (default %(default)s)")
    w.set_defaults(func=_binding_sweep)

    sub.add_parser("make-examples", help="render the page's world example scenes into assets/examples"
                   ).set_defaults(func=_make_examples)

    # Listed for --help only: main() hands everything after "app" to the page's own flags (app --help lists them).
    sub.add_parser("app", help="serve the page, as python app.py does (its flags: app --help)", add_help=False)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["app"]:
        from explorer.page import main as serve_page

        return serve_page(argv[1:], prog=f"{prog()} app")
    given = Settings.from_env(os.environ)  # read once, here: the flags override it and it is passed down
    args = build_parser(given).parse_args(argv)
    args.argv = argv  # the command as given, for the reports that record it
    args.settings = use(given.with_flags(args, ["log_level", *getattr(args, "settings_flags", ())]))
    logging.basicConfig(level=args.settings.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    from explorer.eval.dataset_loaders import DatasetError
    from explorer.models.model_errors import ModelUnavailable

    try:
        return args.func(args)
    except (DatasetError, ModelUnavailable) as exc:
        logging.getLogger("explorer").error("%s", exc)
        return 2
