"""CSV files a spreadsheet opens safely: a text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return is written after an apostrophe (OWASP's rule against formula injection), so it shows as text and never runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutral(value: Any) -> Any:
    """``value``, with an apostrophe in front where it is text a spreadsheet would read as a formula."""
    return "'" + value if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value


def write_csv(frame: pd.DataFrame, path: Path) -> Path:
    """``frame`` as a CSV file at ``path`` (no index), every text cell and column name made ``neutral``."""
    frame.rename(columns=neutral).map(neutral).to_csv(path, index=False)
    return path
