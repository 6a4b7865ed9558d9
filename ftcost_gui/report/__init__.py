"""Reports: PDF, self-contained HTML and Markdown of a whole estimate document.

``content``, ``html`` and ``markdown`` are Qt-free (the text, worded by present/); ``render``
draws the plots offscreen with charts/ and writes the PDF (imports Qt when called).
"""

from __future__ import annotations

from typing import Any

__all__ = ["Report", "report_html", "report_markdown", "write_html", "write_markdown"]


def __getattr__(name: str) -> Any:
    # Lazy: the builders load on first export.
    if name == "Report":
        from .content import Report

        return Report
    if name in ("report_html", "write_html"):
        from . import html

        return getattr(html, name)
    if name in __all__:
        from . import markdown

        return getattr(markdown, name)
    raise AttributeError(name)
