"""How far a line of text inks above and below, read from its characters' glyphs (no layout).

The Compare table repaints only the delta line of a cell whose value line did not change; for
that it needs to know, without laying the texts out, that the value line's ink ends above the
rows it repaints and that the old and the new delta line's ink start below where it begins.
"""

from __future__ import annotations

import math

from PySide6.QtGui import QFont, QFontMetricsF, QTextLayout

MARGIN = 1  # px kept on each side: the baseline is drawn at a whole pixel, rounded


class InkExtents:
    """Per character of one font: the ascent of the font that draws it (a fallback font's when
    the font lacks the glyph) and its glyph's ink above and below the baseline. A line's baseline
    sits its highest character's ascent below the line's top, so a text's ink spans, from the
    top of its line, ``max(ascent) + min(top)`` to ``max(ascent) + max(bottom)``."""

    def __init__(self, font: QFont):
        self._font = QFont(font)
        self._metrics = QFontMetricsF(self._font)
        self._chars: dict[str, tuple[float, float, float]] = {}

    def _char(self, ch: str) -> tuple[float, float, float]:
        got = self._chars.get(ch)
        if got is None:
            layout = QTextLayout(ch, self._font)
            layout.beginLayout()
            line = layout.createLine()
            layout.endLayout()
            ink = self._metrics.tightBoundingRect(ch)  # its glyph's ink, y down from the baseline
            # An empty box (a space) counts as a point on the baseline: it only widens the span.
            got = self._chars[ch] = (line.ascent(), min(ink.top(), 0.0), max(ink.bottom(), 0.0))
        return got

    def span(self, text: str) -> tuple[int, int]:
        """(first, last + 1) pixel row the text can ink, from the top of its line, margins in."""
        chars, char = self._chars, self._char
        ascent = top = bottom = 0.0
        for ch in text:
            got = chars.get(ch) or char(ch)
            if got[0] > ascent:
                ascent = got[0]
            if got[1] < top:
                top = got[1]
            if got[2] > bottom:
                bottom = got[2]
        if not text:
            return (0, 0)
        return (math.floor(ascent + top) - MARGIN, math.ceil(ascent + bottom) + MARGIN)
