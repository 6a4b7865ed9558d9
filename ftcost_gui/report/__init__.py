"""Reports: PDF, self-contained HTML and Markdown of a whole estimate document.

``content`` and ``tables`` are Qt-free (text builders); ``render`` draws the plots offscreen from
the window's plot classes and writes the PDF (imports Qt when called).
"""

from .content import Report, report_html, report_markdown, write_html, write_markdown

__all__ = ["Report", "report_html", "report_markdown", "write_html", "write_markdown"]
