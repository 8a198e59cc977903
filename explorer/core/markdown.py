"""User text shown in markdown, made inert."""

from __future__ import annotations

import html
import re

_MARKDOWN_SPECIALS = re.compile(r"([\\`*_\[\]!|~#])")  # emphasis, code, links, images, tables, headings


def plain(text: str) -> str:
    """User text made inert in markdown: no HTML tags, no emphasis, links or images, shown as typed."""
    return _MARKDOWN_SPECIALS.sub(r"\\\1", html.escape(str(text), quote=False))
