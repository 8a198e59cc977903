"""The public benchmarks' test fixtures (``tests/eval/layout_fixtures.py``: each in its published layout, world
scenes in the middle of 176 x 128 pictures whose sides are noise) scored by the embedded model's global cosine as
each official script reads a picture (the model's own preprocess, which centre-crops: ``eval``'s default) and in the
padded whole view: how many verdicts the reading changes and each benchmark's headline under both. The tests
(``tests/eval/test_authors_readings.py``, ``tests/eval/test_layouts.py``) check the first reading against each
official script's scoring item for item.

    python scripts/authors_reading.py --out docs/results/authors-reading.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "eval")]

BENCHMARKS = ("sugarcrepe", "winoground", "bivlc", "aro", "colorswap", "whatsup", "sugarcrepe-pp", "valse", "eqben")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "results" / "authors-reading.json")
    args = parser.parse_args()

    import layout_fixtures as fixtures

    from explorer.eval.accuracy import item_outcomes, summary
    from explorer.eval.benchmark_registry import load_items
    from explorer.methods import get_method
    from explorer.models.loader import load_encoder

    method = get_method("global", load_encoder())
    record = {"model": method.encoder.label, "method": "global", "pictures": list(fixtures.WIDE), "benchmarks": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for name in BENCHMARKS:
            data = getattr(fixtures, name.replace("-", "_"))(Path(tmp) / name)
            found = {}
            for view in ("raw", "whole"):
                items = load_items(name, data, view=view)
                outcomes = item_outcomes([method], items, name)
                cell = summary([method], items, outcomes, name)["global"]["all"]
                verdicts = [(o["global"].text, o["global"].image) for o in outcomes]  # text, and image where two
                found[view] = (verdicts, {k: v for k, v in cell.items() if k not in ("n", "ci", "kinds")})
            (raw, cell_raw), (whole, cell_whole) = found["raw"], found["whole"]
            changed = sum(a != b for a, b in zip(raw, whole))
            record["benchmarks"][name] = {"items": len(raw), "verdicts_changed": changed,
                                          "authors_reading": cell_raw, "whole_view": cell_whole}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=2) + "\n")
    print(json.dumps(record["benchmarks"], indent=1))


if __name__ == "__main__":
    main()
