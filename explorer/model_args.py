"""The model flags every command and the app share (``--model``, ``--pretrained``, ``--checkpoint``, ``--device``,
``--precision``, ``--compile``)."""

from __future__ import annotations

import argparse
import os

from explorer.tower import PRECISION_HELP, PRECISIONS


def add_model_args(p: argparse.ArgumentParser, precision: str = "auto") -> None:
    """The model flags; ``precision`` is the default of ``--precision`` (the page's is ``native``)."""
    p.add_argument("--model", default=os.environ.get("EXPLORER_MODEL"),
                   help="open_clip model name (default: the embedded world-clip)")
    p.add_argument("--pretrained", default=os.environ.get("EXPLORER_PRETRAINED"),
                   help="open_clip pretrained tag, e.g. openai (needs the model hub or its cache)")
    p.add_argument("--checkpoint", default=os.environ.get("EXPLORER_CHECKPOINT"),
                   help="local weights file (.safetensors or a state dict), or a shipped checkpoint's name "
                        "(explorer/checkpoints.py), e.g. world-clip-powerclip")
    p.add_argument("--device", default=None, help="cpu or cuda (default: cuda when present)")
    p.add_argument("--precision", choices=PRECISIONS, default=os.environ.get("EXPLORER_PRECISION", precision),
                   help=f"{PRECISION_HELP} (default {precision}; env EXPLORER_PRECISION)")
    p.add_argument("--compile", action="store_true", default=os.environ.get("EXPLORER_COMPILE", "") == "1",
                   help="compile the image tower per batch bucket (CUDA graphs on a GPU), warmed in the background; "
                        "off by default (env EXPLORER_COMPILE=1)")


def encoder_spec(args: argparse.Namespace):
    """The ``EncoderSpec`` the model flags describe."""
    from explorer.loader import EncoderSpec

    return EncoderSpec(args.model, args.pretrained, args.checkpoint, args.device,
                       getattr(args, "precision", "auto"), getattr(args, "compile", False))


def load_encoder(args: argparse.Namespace):
    """The encoder the model flags name (the embedded world-clip when none is given)."""
    from explorer.loader import load_encoder as load

    return load(encoder_spec(args))
