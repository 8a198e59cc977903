"""Launch the binding explorer's page: ``binding-explorer app``, ``python -m explorer app`` or ``python app.py``
(flags: ``--help``)."""

from __future__ import annotations

import argparse
import logging
import os

from explorer.encoders import ModelUnavailable
from explorer.engine import Engine
from explorer.model_args import add_model_args, load_encoder
from explorer.model_pool import MAX_MODELS, MODEL_BUDGET_MB
from explorer.ui.serving import Serving


def parse_args(argv: list[str] | None = None, prog: str | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog=prog, description=__doc__)
    p.add_argument("--host", default=os.environ.get("EXPLORER_HOST", "127.0.0.1"),
                   help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=int(os.environ.get("EXPLORER_PORT", "7860")))
    p.add_argument("--share", action="store_true", help="also open a public gradio.live link (off by default)")
    p.add_argument("--max-file-size", default=os.environ.get("EXPLORER_MAX_FILE_SIZE", "25mb"),
                   help="largest upload accepted")
    p.add_argument("--sam-checkpoint", default=os.environ.get("EXPLORER_SAM_CHECKPOINT"),
                   help="segment-anything checkpoint: adds SAM regions to SGI")
    p.add_argument("--concurrency", type=int, default=Serving.heavy_concurrency,
                   help="analyses and model loads run at once, all users together (env EXPLORER_CONCURRENCY)")
    p.add_argument("--queue-size", type=int, default=Serving.queue_size,
                   help="requests waiting in the queue before new ones are told the server is busy")
    p.add_argument("--time-limit", type=float, default=Serving.time_limit_s,
                   help="seconds a heavy request may take before the page says so (env EXPLORER_TIME_LIMIT)")
    p.add_argument("--max-models", type=int, default=MAX_MODELS,
                   help="models kept loaded for the sessions that picked them (env EXPLORER_MAX_MODELS)")
    p.add_argument("--model-budget-mb", type=float, default=MODEL_BUDGET_MB,
                   help="memory the loaded models' weights may take, in MiB (env EXPLORER_MODEL_BUDGET_MB)")
    p.add_argument("--log-level", default=os.environ.get("EXPLORER_LOG_LEVEL", "INFO"))
    add_model_args(p, precision="native")  # the page is live: the device's fast precision (numbers: the CLI's fp32)
    return p.parse_args(argv)


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    args = parse_args(argv, prog)
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    try:
        encoder = load_encoder(args)
    except ModelUnavailable as exc:
        logging.error("%s", exc)
        return 2
    options = {"sgi": {"sam_checkpoint": args.sam_checkpoint}} if args.sam_checkpoint else {}
    engine = Engine(encoder, method_options=options, budget_mb=args.model_budget_mb, max_models=args.max_models)
    from explorer.ui.app import build_app

    serving = Serving(heavy_concurrency=args.concurrency, queue_size=args.queue_size, time_limit_s=args.time_limit)
    demo = build_app(engine, serving)
    demo.launch(server_name=args.host, server_port=args.port, share=args.share, max_file_size=args.max_file_size)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
