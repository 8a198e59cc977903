"""Render the world example scenes the page offers (one per swap kind and split, drawings on white and on a dark
background, and one per published benchmark's idea on the world; their captions in index.json) into its examples
folder: assets/examples in a checkout. Run it after a change to how the world draws, so that the page's examples show
what the model is tested on."""

from __future__ import annotations

import argparse

from explorer.core.settings import Settings

NAME = "make-examples"


def add_parser(sub, settings: Settings) -> argparse.ArgumentParser:
    m = sub.add_parser(NAME, help="render the page's world example scenes into assets/examples", description=__doc__)
    m.set_defaults(func=run)
    return m


def run(args: argparse.Namespace) -> int:
    from explorer.world.examples import write_world_examples

    print("\n".join(map(str, write_world_examples())))
    return 0
