"""Plain text for Qt widgets that guess whether a text is rich (message boxes, tooltips).

Qt renders a text as HTML when it *looks* like HTML, so a name from a file such as
``<img src=…>`` would be applied, not shown. ``rich_text`` escapes the whole message and marks it
as rich text, so Qt shows exactly the characters given (line breaks kept, lines still wrap).
"""

from __future__ import annotations

from PySide6.QtGui import Qt


def rich_text(text: str) -> str:
    return Qt.convertFromPlainText(text, Qt.WhiteSpaceMode.WhiteSpaceNormal)
