"""Names as data in Qt texts that read more than characters: rich text guessed (message boxes,
tooltips) and keyboard mnemonics (menus, actions, tabs).

Qt renders a text as HTML when it *looks* like HTML, so a name from a file such as
``<img src=…>`` would be applied, not shown. ``rich_text`` escapes the whole message and marks it
as rich text, so Qt shows exactly the characters given (line breaks kept, lines still wrap).
"""

from __future__ import annotations

from PySide6.QtGui import Qt

from ..io.names import plain


def rich_text(text: str) -> str:
    """``text`` as rich text showing exactly its characters; "" stays "" (no tooltip at all:
    Qt's conversion of "" is an empty paragraph, which shows an empty tooltip box)."""
    return Qt.convertFromPlainText(text, Qt.WhiteSpaceMode.WhiteSpaceNormal) if text else ""


def menu_text(text: str) -> str:
    """A name in a text Qt reads keyboard mnemonics from (menus, actions, tabs, undo commands):
    no control or bidi marks, and its '&' shown, not taken as a mnemonic ("R&D" read "RD")."""
    return plain(text).replace("&", "&&")
