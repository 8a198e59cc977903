"""The model flags every command and the app share (``--model``, ``--pretrained``, ``--checkpoint``, ``--device``,
``--precision``, ``--compile``), made from their settings (``explorer/core/settings.py``); the commands that run on one
model, and the encoder the flags name."""

from __future__ import annotations

import argparse

from explorer.models.loader import EncoderSpec
from explorer.core.settings import MODEL_FLAGS, Settings, add_setting_flags


def add_model_args(p: argparse.ArgumentParser, settings: Settings, precision: str = "auto") -> None:
    """The model flags, their defaults ``settings``' (the environment's); ``precision`` is the default of
    ``--precision`` where the environment gives none (the page's is ``native``)."""
    add_setting_flags(p, settings, MODEL_FLAGS, precision=precision)


def model_command(sub, settings: Settings, name: str, help: str, func, json: str | None = None,
                  precision: str = "auto") -> argparse.ArgumentParser:
    """A command that runs on one model: the model flags (``precision`` the default of ``--precision``), ``--json``
    (its help given) and the function to run; ``settings_flags`` names the flags that are settings."""
    parser = sub.add_parser(name, help=help)
    add_model_args(parser, settings, precision)
    if json:
        parser.add_argument("--json", help=json)
    parser.set_defaults(func=func, settings_flags=MODEL_FLAGS)
    return parser


def encoder_spec(settings: Settings) -> EncoderSpec:
    """The ``EncoderSpec`` the model settings describe (the embedded world-clip when they name none)."""
    return EncoderSpec(settings.model, settings.pretrained, settings.checkpoint, settings.device,
                       settings.precision or "auto", settings.compile)
