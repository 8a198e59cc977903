"""Write into a training record the warm starts that led to its starting weights, so its card can name each.

``python scripts/record_lineage.py RECORD --origin WEIGHTS --origin-record JSON --what "the model shipped at commit
ee04569" --how "scripts/retrain_varied.sh" STAGE_RECORD:WEIGHTS ...``: each stage is a train-world record and the
weights it wrote, in order; each must have started from the weights before it (its ``init_sha256``), and RECORD's run
from the last. The origin keeps its own record's config: the recipe a from-scratch run of the model would use.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def lineage(origin: Path, what: str, how: str, stages: list[tuple[Path, Path]], record: dict,
            origin_config: dict | None = None) -> list[dict]:
    """The origin (with its training config, when given) and each stage, every link checked by sha256."""
    out = [{"what": what, "how": how, "sha256": sha256(origin), **({"config": origin_config} if origin_config else {})}]
    for record_path, weights in stages:
        stage = json.loads(record_path.read_text())
        if stage["init_sha256"] != out[-1]["sha256"]:
            raise ValueError(f"{record_path} did not start from the weights before it "
                             f"(sha256 {out[-1]['sha256'][:12]})")
        cfg = stage["config"]
        out.append({"run": weights.stem.removeprefix("world-clip-"), "steps": cfg["steps"], "seed": cfg["seed"],
                    "wall_s": stage["wall_s"], "sha256": sha256(weights)})
    if record["init_sha256"] != out[-1]["sha256"]:
        raise ValueError(f"the record did not start from the last stage's weights (sha256 {out[-1]['sha256'][:12]})")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("record", type=Path)
    parser.add_argument("--origin", type=Path, required=True, help="the weights the first stage started from")
    parser.add_argument("--origin-record", type=Path, help="the origin's training record (its config is kept)")
    parser.add_argument("--what", required=True, help="what those weights are, in the card's words")
    parser.add_argument("--how", required=True, help="the script that made the stages")
    parser.add_argument("stages", nargs="*", help="RECORD:WEIGHTS of each stage, in order")
    args = parser.parse_intermixed_args()  # RECORD, then the flags, then the stages
    record = json.loads(args.record.read_text())
    stages = [tuple(Path(p) for p in s.split(":", 1)) for s in args.stages]
    origin_config = json.loads(args.origin_record.read_text())["config"] if args.origin_record else None
    record["lineage"] = lineage(args.origin, args.what, args.how, stages, record, origin_config)
    args.record.write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
