"""Command line: ``python -m explorer COMMAND``; each command imports only what it needs."""

from __future__ import annotations

import argparse
import json
import logging
import os
from pathlib import Path

from explorer import world
from explorer.models import EMBEDDED_CHECKPOINT


def _train_world(args: argparse.Namespace) -> int:
    from explorer.training.world_clip import TrainConfig, train

    cfg = TrainConfig(coverage=args.coverage, seed=args.seed, steps=args.steps, batch_size=args.batch_size,
                      lr=args.lr, objective=args.objective)
    out = Path(args.out or EMBEDDED_CHECKPOINT)
    run_dir = Path(args.run_dir or f"runs/train-world-{args.objective}-c{args.coverage}-s{args.seed}")
    train(cfg, run_dir, out)
    if not args.no_card:
        _write_card(out, args.objective)
    return 0


def _write_card(checkpoint: Path, objective: str) -> Path:
    from explorer.training.card import write_card

    title = "world-clip: the embedded dual encoder" if checkpoint == EMBEDDED_CHECKPOINT else checkpoint.stem
    path = write_card(checkpoint, f"{title} ({objective} objective)")
    logging.getLogger(__name__).info("wrote %s", path)
    return path


def _model_card(args: argparse.Namespace) -> int:
    checkpoint = Path(args.checkpoint or EMBEDDED_CHECKPOINT)
    _write_card(checkpoint, json.loads(checkpoint.with_suffix(".json").read_text())["config"]["objective"])
    return 0


def add_model_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", default=os.environ.get("EXPLORER_MODEL"),
                   help="open_clip model name (default: the embedded world-clip)")
    p.add_argument("--pretrained", default=os.environ.get("EXPLORER_PRETRAINED"),
                   help="open_clip pretrained tag, e.g. openai (needs the model hub or its cache)")
    p.add_argument("--checkpoint", default=os.environ.get("EXPLORER_CHECKPOINT"),
                   help="local weights file (.safetensors or a state dict)")
    p.add_argument("--device", default=None, help="cpu or cuda (default: cuda when present)")


def load_encoder(args: argparse.Namespace):
    from explorer.encoders import DualEncoder

    return DualEncoder(args.model, args.pretrained, args.checkpoint, args.device)


def _eval(args: argparse.Namespace) -> int:
    from explorer.evaluate import evaluate_world
    from explorer.methods import get_method

    encoder = load_encoder(args)
    methods = [get_method(m, encoder) for m in args.methods.split(",")]
    splits = args.split.split(",")
    results = evaluate_world(methods, args.benchmark, splits, args.limit)
    report = {"benchmark": args.benchmark, "model": encoder.label, "results": results}
    print(json.dumps(report, indent=2))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(report, indent=2))
    return 0


def _bench(args: argparse.Namespace) -> int:
    from explorer.bench import sgi_figures

    encoder = load_encoder(args)
    report = {"model": encoder.label, "device": encoder.device, "figures": sgi_figures(encoder, repeat=args.repeat)}
    print(json.dumps(report, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 0


def _make_examples(args: argparse.Namespace) -> int:
    from explorer.examples import write_world_examples

    for path in write_world_examples():
        print(path)
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m explorer", description=__doc__)
    p.add_argument("--log-level", default=os.environ.get("EXPLORER_LOG_LEVEL", "INFO"))
    sub = p.add_subparsers(dest="command", required=True)

    t = sub.add_parser("train-world", help="train a world dual encoder from scratch (CLIP loss)")
    t.add_argument("--coverage", type=float, default=world.DEFAULT_COVERAGE,
                   help="fraction of colour-shape objects seen in training")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--steps", type=int, default=1700)
    t.add_argument("--batch-size", type=int, default=128)
    t.add_argument("--lr", type=float, default=1e-3)
    t.add_argument("--objective", choices=["clip"], default="clip")
    t.add_argument("--out", help=f"weights file to write (default {EMBEDDED_CHECKPOINT})")
    t.add_argument("--run-dir", help="where resumable state is kept (default runs/train-world-...)")
    t.add_argument("--no-card", action="store_true", help="skip measuring and writing the model card")
    t.set_defaults(func=_train_world)

    c = sub.add_parser("model-card", help="measure a trained checkpoint and (re)write its model card")
    c.add_argument("--checkpoint", help=f"weights file with its .json record (default {EMBEDDED_CHECKPOINT})")
    c.set_defaults(func=_model_card)

    e = sub.add_parser("eval", help="evaluate scoring methods on a benchmark")
    e.add_argument("--benchmark", choices=["world", "world-single"], default="world")
    e.add_argument("--methods", default="global", help="comma-separated registered methods")
    e.add_argument("--split", default="id,heldout,shift", help="comma-separated world splits")
    e.add_argument("--limit", type=int, default=200, help="items per split and kind")
    e.add_argument("--json", help="write the report here")
    add_model_args(e)
    e.set_defaults(func=_eval)

    b = sub.add_parser("bench", help="speed figures, measured side by side in one run")
    b.add_argument("--json", help="write the figures here")
    b.add_argument("--repeat", type=int, default=3, help="runs per timing (the best is kept)")
    add_model_args(b)
    b.set_defaults(func=_bench)

    x = sub.add_parser("make-examples", help="render the page's world example scenes into assets/examples")
    x.set_defaults(func=_make_examples)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    return args.func(args)
