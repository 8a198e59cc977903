"""The objects the proposals find on the world's pictures, to show a change to the page's reading leaves them as they
were: run it from two checkouts (it reads the ``explorer`` of the folder it is run from), then compare.

    cd CHECKOUT && python PATH/TO/scripts/same_objects.py --json A.json   # every split, 10 items of each kind
    python scripts/same_objects.py --compare A.json B.json # per split: the pictures whose view or objects differ

For each picture (rendered at 224 px, the embedded model's size): its whole view (``fit.fit_of``: box, how, fill, and
the sum of the view's pixels) and the boxes and colours of ``proposals.objects`` on the picture and on its whole view
(SGI's object windows are these), and the lines of text found on that view (none on a world picture: SGI cuts its
crops from the picture as it is there).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path.cwd()))  # the checkout it is run from

from explorer.core import image_state  # noqa: E402
from explorer.core.items import picture  # noqa: E402
from explorer.images.fit import fit_of, view_state  # noqa: E402
from explorer.methods import proposals  # noqa: E402
from explorer.world import DRAWN_SPLITS, KINDS, SPLITS, VIEW_SPLITS, swap_items  # noqa: E402

SIZE = 224


def reading(image) -> dict:
    """One picture's whole view and its objects (box and colour), on the picture and on that view."""
    fit = fit_of(image, "whole")
    view = view_state(image_state.of(image), "whole")
    objects = lambda state: [[*o.box, *o.rgb] for o in proposals.objects(state).objects]  # noqa: E731
    return {"fit": [list(fit.box), fit.how, list(fit.fill)], "view_sum": int(np.asarray(view.image, np.int64).sum()),
            "picture": objects(image_state.of(image)), "whole": objects(view),
            "text": [list(b) for b in proposals.objects(view).text]}


def readings(per_kind: int) -> dict[str, list[dict]]:
    """Every split's pictures read: ``per_kind`` items of each kind, both pictures of each."""
    return {split: [reading(picture(ref, SIZE)) for kind in KINDS for item in swap_items(split, kind, per_kind)
                    for ref in item.images[:2]] for split in SPLITS + DRAWN_SPLITS + VIEW_SPLITS}


def compare(a: dict[str, list[dict]], b: dict[str, list[dict]]) -> bool:
    """Print each split's count of pictures differing in each field; True where none differs."""
    same = True
    for split in a:
        differ = {k: sum(x.get(k) != y.get(k) for x, y in zip(a[split], b.get(split, []))) for k in a[split][0]}
        same &= not any(differ.values()) and len(a[split]) == len(b.get(split, []))
        print(f"{split:12s} {len(a[split])} pictures, differing: {differ}")
    return same


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="where to write this checkout's readings")
    parser.add_argument("--per-kind", type=int, default=10, help="items of each kind per split (default 10)")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"), help="two readings to compare")
    args = parser.parse_args(argv)
    if args.compare:
        return 0 if compare(*(json.loads(p.read_text()) for p in args.compare)) else 1
    if not args.json:
        parser.error("give --json to write the readings, or --compare A B")
    args.json.write_text(json.dumps(readings(args.per_kind)) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
