"""The model flags every command and the app share (``--model``, ``--pretrained``, ``--checkpoint``, ``--device``)."""

from __future__ import annotations

import argparse
import os


def add_model_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", default=os.environ.get("EXPLORER_MODEL"),
                   help="open_clip model name (default: the embedded world-clip)")
    p.add_argument("--pretrained", default=os.environ.get("EXPLORER_PRETRAINED"),
                   help="open_clip pretrained tag, e.g. openai (needs the model hub or its cache)")
    p.add_argument("--checkpoint", default=os.environ.get("EXPLORER_CHECKPOINT"),
                   help="local weights file (.safetensors or a state dict), or a shipped checkpoint's name "
                        "(explorer/checkpoints.py), e.g. world-clip-powerclip")
    p.add_argument("--device", default=None, help="cpu or cuda (default: cuda when present)")


def encoder_spec(args: argparse.Namespace):
    """The ``EncoderSpec`` the model flags describe."""
    from explorer.loader import EncoderSpec

    return EncoderSpec(args.model, args.pretrained, args.checkpoint, args.device)


def load_encoder(args: argparse.Namespace):
    """The encoder the model flags name (the embedded world-clip when none is given)."""
    from explorer.loader import load_encoder as load

    return load(encoder_spec(args))
