"""Launch the binding explorer's page: ``binding-explorer app``, ``python -m explorer app`` or ``python app.py``
(flags: ``--help``)."""

from __future__ import annotations

import argparse
import gc
import logging
import os
import signal
import time

from explorer.commands.model_args import add_model_args, encoder_spec
from explorer.core.settings import MODEL_FLAGS, Settings, add_setting_flags, current, use
from explorer.models.loader import load_encoder
from explorer.models.model_errors import ModelUnavailable

PAGE_FLAGS = ("host", "port", "share", "max_file_size", "data_root", "table_rows", "table_mb", "sam_checkpoint",
              "concurrency", "queue_size", "time_limit", "max_models", "model_budget_mb", "log_level")


def parse_args(argv: list[str] | None = None, prog: str | None = None,
               settings: Settings | None = None) -> argparse.Namespace:
    """The page's flags, their defaults ``settings`` (None: this process's)."""
    p = argparse.ArgumentParser(prog=prog, description=__doc__)
    add_setting_flags(p, settings or current(), PAGE_FLAGS)
    add_model_args(p, settings or current(), precision="native")  # the page is live: the device's fast precision
    return p.parse_args(argv)


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    given = Settings.from_env(os.environ)  # read once, here: the flags override it and it is passed down
    settings = use(given.with_flags(parse_args(argv, prog, given), PAGE_FLAGS + MODEL_FLAGS))
    logging.basicConfig(level=settings.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    from explorer.ui import sessions

    sessions.private_cache()  # before gradio is imported: its cache of this server's files, removed when it stops
    from explorer.engine import Engine  # torch and gradio: only once the flags are read (--help needs neither)
    from explorer.methods import options_from
    from explorer.ui import guard
    from explorer.ui.app import build_app
    from explorer.ui.serving import Serving

    try:
        encoder = load_encoder(encoder_spec(settings))
    except ModelUnavailable as exc:
        logging.error("%s", exc)
        return 2
    engine = Engine(encoder, method_options=options_from(settings), budget_mb=settings.model_budget_mb,
                    max_models=settings.max_models)
    demo = build_app(engine, Serving.of(settings))
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # stopped, it closes as on Ctrl-C
    demo.launch(server_name=settings.host, server_port=settings.port, share=settings.share,
                max_file_size=settings.max_file_size, prevent_thread_lock=True, **sessions.launch_options())
    try:
        while demo.is_running:
            time.sleep(0.2)
    except KeyboardInterrupt:
        logging.info("stopping: the running requests, then the server; removing every page's files")
    finally:  # running work stops at its next check, the heartbeats end (the server closes at once), no file stays
        guard.stop_all()
        demo.close()
        sessions.clear(demo)
        gc.freeze()  # the interpreter's exit skips collecting the models' objects one by one (seconds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
