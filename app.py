"""Launch the binding explorer: ``python app.py`` (flags: ``--help``)."""

from __future__ import annotations

import argparse
import logging
import os

from explorer.cli import add_model_args, load_encoder
from explorer.encoders import ModelUnavailable
from explorer.engine import Engine


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--host", default=os.environ.get("EXPLORER_HOST", "127.0.0.1"),
                   help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=int(os.environ.get("EXPLORER_PORT", "7860")))
    p.add_argument("--share", action="store_true", help="also open a public gradio.live link (off by default)")
    p.add_argument("--max-file-size", default=os.environ.get("EXPLORER_MAX_FILE_SIZE", "25mb"),
                   help="largest upload accepted")
    p.add_argument("--sam-checkpoint", default=os.environ.get("EXPLORER_SAM_CHECKPOINT"),
                   help="segment-anything checkpoint: adds SAM regions to SGI")
    p.add_argument("--log-level", default=os.environ.get("EXPLORER_LOG_LEVEL", "INFO"))
    add_model_args(p)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    try:
        encoder = load_encoder(args)
    except ModelUnavailable as exc:
        logging.error("%s", exc)
        return 2
    options = {"sgi": {"sam_checkpoint": args.sam_checkpoint}} if args.sam_checkpoint else {}
    engine = Engine(encoder, method_options=options)
    from explorer.ui.app import build_app

    demo = build_app(engine)
    demo.queue(default_concurrency_limit=2)
    demo.launch(server_name=args.host, server_port=args.port, share=args.share, max_file_size=args.max_file_size)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
