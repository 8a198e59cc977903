"""Check every verdict of a binding record on other render seeds run side by side.

``python scripts/binding_check_seeds.py RUN.json OTHER.json ... --json OUT.json``: RUN.json and each OTHER.json
are ``python -m explorer binding --no-check --render-seed S --json ...`` of the same model and settings at different
render seeds; OUT.json is RUN.json with each tested reading measured on the other seeds beside it and "unstable"
where their verdicts differ, the record ``binding`` writes when it checks the seeds itself
(``binding_report.checked_from``).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from explorer.readings.binding_report import checked_from  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", type=Path, help="the record whose verdicts are checked")
    parser.add_argument("others", type=Path, nargs="+", help="the same run at other render seeds")
    parser.add_argument("--json", type=Path, required=True, help="where the checked record goes")
    args = parser.parse_args(argv)
    try:
        records = [json.loads(path.read_text()) for path in (args.run, *args.others)]
    except (OSError, ValueError) as error:
        raise SystemExit(f"not a binding record: {error}") from None
    command = " ".join(["python scripts/binding_check_seeds.py", *map(shlex.quote, sys.argv[1:] if argv is None
                                                                        else argv)])
    try:
        checked = checked_from(records[0], records[1:], command)
    except (KeyError, ValueError) as error:
        raise SystemExit(f"cannot check these records against each other: {error}") from None
    args.json.write_text(json.dumps(checked, indent=1) + "\n")


if __name__ == "__main__":
    main()
