"""Reports: PDF, self-contained HTML and Markdown of a whole estimate document.

``content`` is Qt-free (the text, built from present/); ``render`` draws the plots offscreen from
the window's plot classes and writes the PDF (imports Qt when called).
"""

from __future__ import annotations

from typing import Any

__all__ = ["Report", "report_html", "report_markdown", "write_html", "write_markdown"]


def __getattr__(name: str) -> Any:
    # Lazy: the builders load on first export.
    if name in __all__:
        from . import content

        return getattr(content, name)
    raise AttributeError(name)
