"""How the page reads marker drawings (``scripts/marker_drawings.py``) and pictures as teachers bring them
(``scripts/teacher_pictures.py``, ``--pictures teacher``): whether the proposals name both objects, and whether SGI's
match for each object's segment lies on that object.

For every picture of a set, on every look, read as the page reads an upload (a copy at most 1024 px long, the
``max_side`` setting): ``Explorer.propose``'s objects against the truth (both named: the proposal's colours and
shapes are the drawing's two); then the page's analysis of the true caption against its swap with the embedded
world-clip, and for each object segment of the true caption ("a red square") SGI's matched region, placed on the
picture as the page draws it (off a turned sheet, in the picture's own pixels): it holds the object when it contains
the object's centre, not the other's, and is at most ``MOST_TIMES`` the object's box. The figures go to a JSON
record (docs/results/marker-drawings.json).

    python scripts/marker_measure.py --set test --per-look 24 --json docs/results/marker-drawings.json
    python scripts/marker_measure.py --pictures teacher --set test --per-look 24 --json docs/results/teacher-pictures.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import marker_drawings  # noqa: E402
import teacher_pictures  # noqa: E402
from marker_drawings import Drawn  # noqa: E402

from explorer.core import image_state  # noqa: E402
from explorer.drawing.display import upload_place  # noqa: E402
from explorer.engine import Engine  # noqa: E402
from explorer.engine.propose import propose  # noqa: E402
from explorer.images.inputs import Upload, normalize_image  # noqa: E402
from explorer.models.encoders import DualEncoder  # noqa: E402

GENERATORS = {"marker": marker_drawings, "teacher": teacher_pictures}
MOST_TIMES = 6.0  # a matched region holds the object when at most this many times the object's box


def holds(box: tuple[float, float, float, float], named: Drawn, other: Drawn) -> bool:
    """Whether a region's box (picture's pixels) holds ``named``: its centre inside, ``other``'s not, and the box at
    most ``MOST_TIMES`` the object's."""
    def inside(point: tuple[float, float]) -> bool:
        return box[0] <= point[0] < box[2] and box[1] <= point[1] < box[3]

    x0, y0, x1, y1 = named.box
    small_enough = (box[2] - box[0]) * (box[3] - box[1]) <= MOST_TIMES * (x1 - x0) * (y1 - y0)
    return inside(named.centre) and not inside(other.centre) and small_enough


def caption(objects: list[Drawn]) -> str:
    return " and ".join(o.phrase for o in objects)


def swapped(objects: list[Drawn]) -> str:
    """The colours exchanged: "a red square and a blue circle" -> "a blue square and a red circle"."""
    a, b = objects
    return caption([Drawn(b.color, a.shape, a.centre, a.box), Drawn(a.color, b.shape, b.centre, b.box)])


def read(engine: Engine, image, truth: list[Drawn]) -> dict:
    """One picture read as the page reads its upload (``read_image``: a copy at most the ``max_side`` setting long,
    keeping the picture's own size): the proposal's verdict, and each object segment's SGI match (on the object or
    not), placed in the picture's own pixels as the page draws it."""
    copy = normalize_image(image)
    state = image_state.of(copy)
    if copy.size != image.size:
        state.keep(Upload(image.size))  # as ``read_image`` keeps it: places are drawn in the picture's own pixels
    proposal = propose(engine.encoder, state)
    named = sorted((o.color, o.shape) for o in proposal.objects)
    analysis = engine.analyze(state, caption(truth), swapped(truth))
    sgi_a, sgi_b = analysis.scores["sgi"]
    place = upload_place(analysis.state)  # where the page draws a region on the picture read (off a turned sheet)
    on_object = []
    for match in sgi_a.evidence.matches:
        if match.segment.kind != "object":
            continue
        k = next(i for i, o in enumerate(truth) if o.phrase == match.prompt)
        box = sgi_a.evidence.regions[match.crop].box
        box = place.box(box)
        on_object.append(bool(holds(box, truth[k], truth[1 - k])))  # the box's numpy floats: a plain bool
    return {"named": named == sorted((o.color, o.shape) for o in truth), "on_object": on_object,
            "sgi_prefers_true": bool(sgi_a.value > sgi_b.value), "notes": list(proposal.notes),
            "proposed": proposal.caption_a}


def measure(which: str, per_look: int, generator=marker_drawings, looks: tuple | None = None
            ) -> tuple[dict, list[dict]]:
    """Every look's figures on the ``which`` set of ``generator``'s pictures (shares of pictures named, of segments
    on their object) and each picture's own outcome."""
    engine = Engine(DualEncoder(), ["global", "sgi"])
    out: dict[str, dict] = {}
    each = []
    for look, i, image, truth in generator.pictures(which, per_look, *([looks] if looks else [])):
        found = read(engine, image, truth)
        each.append({"look": look, "index": i, "size": list(image.size),
                     **{k: found[k] for k in ("named", "on_object", "sgi_prefers_true", "proposed")}})
        row = out.setdefault(look, {"pictures": 0, "named": 0, "segments": 0, "on_object": 0, "sgi_prefers_true": 0})
        row["pictures"] += 1
        row["named"] += found["named"]
        row["segments"] += len(found["on_object"])
        row["on_object"] += sum(found["on_object"])
        row["sgi_prefers_true"] += found["sgi_prefers_true"]
    for row in out.values():
        row["named_share"] = round(row["named"] / row["pictures"], 4)
        row["on_object_share"] = round(row["on_object"] / max(1, row["segments"]), 4)
    return out, each


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pictures", choices=sorted(GENERATORS), default="marker",
                        help="marker drawings (default) or pictures as teachers bring them")
    parser.add_argument("--set", default="tune", help="which set: tune or test (marker), val or test (teacher)")
    parser.add_argument("--per-look", type=int, default=24, help="pictures per look (default 24)")
    parser.add_argument("--looks", help="only these looks of the teacher pictures, comma-separated (a record in parts)")
    parser.add_argument("--json", type=Path, help="where to write the record")
    args = parser.parse_args(argv)
    generator = GENERATORS[args.pictures]
    if args.set not in generator.SEEDS:
        parser.error(f"the {args.pictures} pictures' sets are {', '.join(sorted(generator.SEEDS))}")
    start = time.perf_counter()
    looks, each = measure(args.set, args.per_look, generator, tuple(args.looks.split(",")) if args.looks else None)
    record = {"pictures_of": args.pictures, "set": args.set, "seed": generator.SEEDS[args.set],
              "per_look": args.per_look, "model": "world-clip (embedded)", "most_times": MOST_TIMES,
              "command": "python scripts/marker_measure.py " + " ".join(argv if argv is not None else sys.argv[1:]),
              **({"sizes": {look.name: list(look.size) for look in marker_drawings.LOOKS}}
                 if args.pictures == "marker" else {}),
              "looks": looks, "pictures": each,
              "seconds": round(time.perf_counter() - start, 1)}
    for name, row in looks.items():
        print(f"{name:12s} named {row['named_share']:.0%}  on object {row['on_object_share']:.0%} "
              f"({row['on_object']}/{row['segments']})  SGI prefers true {row['sgi_prefers_true']}/{row['pictures']}")
    if args.json:
        args.json.write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
