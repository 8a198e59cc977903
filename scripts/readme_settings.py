"""README's configuration tables, made from the settings (``explorer/core/settings.py``): ``python
scripts/readme_settings.py`` rewrites each table between ``<!-- settings: SECTION -->`` and ``<!-- /settings -->``
in README.md; ``--check`` only says whether one differs (``tests/core/test_settings.py`` keeps them equal)."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from explorer.core.settings import markdown  # noqa: E402

BLOCK = re.compile(r"(<!-- settings: (\w+) -->\n).*?(<!-- /settings -->)", re.S)


def with_tables(text: str) -> str:
    """``text`` with each marked block's table made again from the settings of its section."""
    return BLOCK.sub(lambda m: f"{m.group(1)}{markdown(m.group(2))}\n{m.group(3)}", text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--readme", type=Path, default=ROOT / "README.md")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a table differs")
    args = parser.parse_args(argv)
    text = args.readme.read_text()
    made = with_tables(text)
    if args.check:
        return int(made != text)
    args.readme.write_text(made)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
