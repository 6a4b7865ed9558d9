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

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QLabel, QWidget


class WrappedLabel(QLabel):
    """``QLabel`` with word wrap whose height for a width is worked out once per text, width
    and look: the heights are kept while everything of the label that lays its text out (text,
    margins, indent, alignment, wrap, format) is the same and no change event (font, style,
    palette, …) has come in since."""

    def __init__(self, text: str = "", parent: QWidget | None = None):
        super().__init__(text, parent)
        self.setWordWrap(True)
        self._heights: dict[int, int] = {}
        self._heights_of: tuple[object, ...] | None = None
        self.layouts = 0  # heights worked out by QLabel (tests count them)

    def heightForWidth(self, width: int) -> int:
        # Read from the label, not tracked through its setters: those are not virtual, so a
        # change made from C++ (a style, a layout) would not pass through an override.
        of = (
            self.text(), self.contentsMargins(), self.margin(), self.indent(),
            self.alignment(), self.wordWrap(), self.textFormat(),
        )  # fmt: skip
        if of != self._heights_of:
            self._heights.clear()
            self._heights_of = of
        height = self._heights.get(width)
        if height is None:
            self.layouts += 1
            height = self._heights[width] = super().heightForWidth(width)
        return height

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        self._heights.clear()  # whatever changed (font, style, …): ask QLabel again
