"""What the Compare table's cells share when painted: one paint's fonts, colours and painter
state (``Frame``), and where the cells' lines ink (``Ink``), for ``compare_table``."""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QPainter, QRegion

from .text_ink import InkExtents

PAD = 6  # px around a cell's text (half of it above and below)


# A delta part asked: the cell's (x, y, width, value line, best), and the viewport's pixel row
# below the value line's ink (``ComparisonTableView._delta_region``).
Part = tuple[tuple[int, int, int, str, bool], int]


class Ink:
    """Where the Compare cells' lines ink, for one table font (``InkExtents``), from the top of
    a cell: each value line's bottom, the delta lines' top (the highest of the characters the
    delta lines have used: a bound for all, found without laying each new delta out)."""

    def __init__(self, font: QFont, bold: QFont, delta: QFont, plain_h: int, bold_h: int):
        # The fonts and line heights the delegate draws with (TwoLineDelegate._delta_font).
        self.plain, self.bold, self.delta = InkExtents(font), InkExtents(bold), InkExtents(delta)
        self.plain_h, self.bold_h = plain_h, bold_h
        self.values: dict[tuple[str, bool], int] = {}
        self._seen: set[str] = set()  # the characters of the delta lines so far
        self._top = 0  # the first row those can ink, from the top of the delta line

    def value_bottom(self, value: str, best: bool) -> int:
        got = self.values.get((value, best))
        if got is None:
            got = self.values[(value, best)] = (
                PAD // 2 + (self.bold if best else self.plain).span(value)[1]
            )
        return got

    def delta_top(self, delta: str, best: bool) -> int:
        if not self._seen.issuperset(delta):
            self._seen.update(delta)
            self._top = self.delta.span("".join(sorted(self._seen)))[0]
        return PAD // 2 + (self.bold_h if best else self.plain_h) + self._top


class Frame:
    """What the cells of one paint of the table share (``ComparisonTableView.paintEvent``).

    Qt makes one item option per paint; a cell's copy differs in its rect, its state and its
    palette's colour group, which is the same for every cell here (the model's items are all
    enabled): the fonts and text colours are read from the first cells. The painter is the
    paint's own: a cell sets the font and the pen it draws with only when the painter holds
    others (each setFont makes a new font to resolve: ~20 µs a cell with its drawText), and
    leaves them for the next, as the grid's lines and the style do (they set their own and put
    the painter's back); no save and restore a cell."""

    __slots__ = ("font", "fonts", "inks", "others", "parts", "pen", "region")

    def __init__(
        self,
        region: QRegion | None,
        asked: QRegion | None = None,
        parts: dict[tuple[int, int], Part] | None = None,
    ):
        self.region = region
        # The delta parts asked (``ComparisonTableView._delta_region``): they leave out their
        # cells' value lines' ink. The rest of the region painted, as its bounds (x1, y1, x2,
        # y2; inclusive), None when none: it can reach a value line.
        self.parts = parts or {}
        self.others: tuple[int, int, int, int] | None = None
        if region is not None and asked is not None:
            rest = region - asked
            if not rest.isEmpty():
                self.others = rest.boundingRect().getCoords()
        self.fonts: tuple[QFont, QFont, int, int] | None = None  # TwoLineDelegate._kept
        self.inks: dict[bool, QColor] = {}  # the text colour, selected or not
        self.font: QFont | None = None  # the font and pen last set on the painter
        self.pen: QColor | None = None

    def skips(self, row: int, col: int, x: int, y: int, width: int, value: str, best: bool) -> bool:
        """Whether the region painted misses the value line of a cell (at x, y, width) that was
        asked as a delta part at that place with that value line: the parts asked leave its
        ink out, and the rest of the region is beside it or above or below its ink."""
        part = self.parts.get((row, col))
        if part is None or part[0] != (x, y, width, value, best):
            return False
        others = self.others
        return (
            others is None
            or x + width <= others[0]
            or x > others[2]
            or part[1] <= others[1]
            or y > others[3]
        )

    def set_font(self, painter: QPainter, font: QFont) -> None:
        if font is not self.font:
            painter.setFont(font)
            self.font = font

    def set_pen(self, painter: QPainter, colour: QColor) -> None:
        if colour is not self.pen:
            painter.setPen(colour)
            self.pen = colour
