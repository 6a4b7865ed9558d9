"""A word-wrapped label that lays its text out once per width, not once per question.

Qt's layouts ask a word-wrapped label for its height at a width several times in one layout pass:
its own layout, each layout above it that has a height for a width (a headline card, the headline
grid, the results page, the result tabs, which ask every page), and the window for its minimum
height at its minimum width. ``QLabel`` keeps its size hints but not these heights: it lays the
whole text out again for each question (a seq-len edit asked the headline's detail lines 30
times for 12 widths; the Compare tab's stages line, ~3,000 characters with 200 scenarios, ~10
times for 3 widths, ~0.6 ms each).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QEnterEvent, QFocusEvent
from PySide6.QtWidgets import QWidget

from .kept_hints import KeptHintsLabel


class WrappedLabel(KeptHintsLabel):
    """``QLabel`` with word wrap whose height for a width is worked out once per text, width
    and look (``KeptHintsLabel``: its last few texts, while everything of the label that lays
    its text out is the same and no change event has come in since)."""

    def __init__(self, text: str = "", parent: QWidget | None = None):
        super().__init__(text, parent)
        self.setWordWrap(True)


SELECTABLE = Qt.TextInteractionFlag.TextSelectableByMouse
PLAIN = Qt.TextInteractionFlag.NoTextInteraction


class SelectableWrappedLabel(WrappedLabel):
    """A ``WrappedLabel`` the user selects with the mouse, selectable from the moment the mouse
    comes over it: until then QLabel measures and draws its (plain) text without a document.

    A selectable QLabel lays its text out in a text document, twice for each size asked (the
    width set, then restored) and for up to five sizes per size hint: the headline's six detail
    lines cost ~10 % of a check-box edit's instructions (callgrind). Its plain path measures with
    QFontMetrics and draws the same pixels at the same sizes (tests/gui/test_selectable_label.py
    compares both, and 3,600 headline card states of random inputs at their widths, light and
    dark, matched). Nobody can select without the mouse over the label, so it stays selectable
    only while the mouse is over it, it has the focus (a click gives it) or it holds a selection.
    """

    def enterEvent(self, event: QEnterEvent) -> None:
        self.setTextInteractionFlags(SELECTABLE)  # before the mouse's first move or press
        super().enterEvent(event)

    def leaveEvent(self, event: QEvent) -> None:
        super().leaveEvent(event)
        self._plain_unless_in_use()

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        self._plain_unless_in_use()

    def _plain_unless_in_use(self) -> None:
        if not (self.underMouse() or self.hasFocus() or self.hasSelectedText()):
            self.setTextInteractionFlags(PLAIN)
