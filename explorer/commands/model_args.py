"""The model flags every command and the app share (``--model``, ``--pretrained``, ``--checkpoint``, ``--device``,
``--precision``, ``--compile``), made from their settings (``explorer/core/settings.py``); the commands that run on one
model, the encoder the flags name, and another model named on their device and precision."""

from __future__ import annotations

import argparse

from explorer.commands.common import add_flag
from explorer.core.settings import MODEL_FLAGS, Settings, add_setting_flags
from explorer.models.loader import EncoderSpec

WHY_PRECISION = "README: Why the page's precision differs from the CLI's"
# Why --precision defaults where it does, said in its help: the commands measure, the page (and bench, which times
# the page) answers a person waiting.
PRECISION_NOTES = {
    "auto": ("The commands default to auto so that what they measure on a CPU is fp32 and reproduces the numbers in "
             "docs/ exactly; native (the page's default) makes an analysis about 1.6x faster on a CPU with AMX and "
             "moves scores by under 1e-3 (TFLocal's unbounded score by 0.025), with the same preferred caption on "
             f"every bench item ({WHY_PRECISION})"),
    "native": ("The page defaults to native because it is live: bf16 makes an analysis about 1.6x faster on a CPU "
               "with AMX and moves scores by under 1e-3 (TFLocal's unbounded score by 0.025), with the same "
               "preferred caption on every bench item; the commands default to auto, whose fp32 on a CPU reproduces "
               f"the numbers in docs/ exactly ({WHY_PRECISION})"),
}


def add_model_args(p: argparse.ArgumentParser, settings: Settings, precision: str = "auto",
                   precision_note: str | None = None) -> None:
    """The model flags, their defaults ``settings``' (the environment's); ``precision`` is the default of
    ``--precision`` where the environment gives none (the page's is ``native``), ``precision_note`` why (by default
    the page's reason for ``native``, the commands' for ``auto``)."""
    note = precision_note or PRECISION_NOTES[precision]
    add_setting_flags(p, settings, MODEL_FLAGS, notes={"precision": note}, precision=precision)


def model_command(sub, settings: Settings, name: str, help: str, func, json: str | None = None,
                  precision: str = "auto", precision_note: str | None = None,
                  description: str | None = None) -> argparse.ArgumentParser:
    """A command that runs on one model: the model flags (``precision`` the default of ``--precision``, with
    ``precision_note`` saying why), ``--json`` (its help given) and the function to run; ``settings_flags`` names the
    flags that are settings. ``help`` is its line in the command list, ``description`` what its own help says."""
    parser = sub.add_parser(name, help=help, description=description or help)
    add_model_args(parser, settings, precision, precision_note)
    if json:
        add_flag(parser, "--json", json)
    parser.set_defaults(func=func, settings_flags=MODEL_FLAGS)
    return parser


def encoder_spec(settings: Settings) -> EncoderSpec:
    """The ``EncoderSpec`` the model settings describe (the embedded world-clip when they name none)."""
    return EncoderSpec(settings.model, settings.pretrained, settings.checkpoint, settings.device,
                       settings.precision or "auto", settings.compile)


def named_spec(name: str, settings: Settings) -> EncoderSpec:
    """The ``EncoderSpec`` of another model, ``name`` as ``eval --compare`` and ``--models`` take it, on the device
    and at the precision the model settings give."""
    from explorer.engine.model_pool import spec_for_name

    return spec_for_name(name, settings.device, precision=settings.precision or "auto", compile=settings.compile)
