"""Headline figures in large type and a breakdown table, both read from one EstimateResult."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..charts.theme import Theme, theme_for
from ..core.inputs import EstimateInputs
from ..core.results import EstimateResult
from ..io.names import plain
from ..present.figures import HEADLINES, breakdown_rows, headline_texts
from ..present.ranges import headline_ranges
from .kept_hints import KeptHintsLabel, contents_margins, label_margin, label_text
from .muted_label import MutedLabel
from .wrapped_label import SelectableWrappedLabel

__all__ = ["HEADLINES", "BreakdownTable", "HeadlineView", "breakdown_rows", "headline_texts"]

VALUE_SCALE = 1.6  # the headline figures, × the window's font size
VALUE_FLOOR = 1.2  # the least they shrink to in a narrow column before the grid reflows


class FitLabel(QLabel):
    """A one-line label in large type that steps its font down (to ``floor`` × the base size)
    rather than be cut when its column is narrow; its minimum width is the text at the floor."""

    def __init__(self, text: str, scale: float, floor: float, parent: QWidget | None = None):
        super().__init__(text, parent)
        self._scale, self._floor = scale, floor
        self._base_pt = QFont(self.font()).pointSizeF()
        # Widths of the text at each scale and the line's height, kept per text and font: the
        # layouts ask for the hints ~12 times an edit, and _fit measures again on each resize.
        self._advances: dict[float, int] = {}
        self._advances_of = ""
        self._height: int | None = None
        self._fit()

    def _font(self, scale: float) -> QFont:
        font = QFont(self.font())
        font.setPointSizeF(self._base_pt * scale)
        font.setBold(True)
        return font

    def _advance(self, scale: float) -> int:
        text = label_text(self)
        if text != self._advances_of:
            self._advances.clear()
            self._advances_of = text
        advance = self._advances.get(scale)
        if advance is None:
            advance = QFontMetrics(self._font(scale)).horizontalAdvance(text)
            self._advances[scale] = advance
        return advance

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._advances.clear()
            self._height = None

    def _hint(self, scale: float) -> QSize:
        """The text at ``scale`` with the margins, the line's height at the full size."""
        m = contents_margins(self)
        if self._height is None:
            self._height = QFontMetrics(self._font(self._scale)).height()
        return QSize(self._advance(scale) + m.left() + m.right() + 2 * label_margin(self),
                     self._height + m.top() + m.bottom())  # fmt: skip

    def minimumSizeHint(self) -> QSize:
        return self._hint(self._floor)

    def sizeHint(self) -> QSize:
        return self._hint(self._scale)

    def setText(self, text: str) -> None:
        super().setText(text)
        self.updateGeometry()
        self._fit()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        """The largest step from the full size down to the floor at which the text fits."""
        width = self.contentsRect().width() - 2 * self.margin()
        scale = self._scale
        while scale > self._floor and self._advance(scale) > width:
            scale = max(self._floor, round(scale - 0.05, 2))
        if abs(self.font().pointSizeF() - self._base_pt * scale) > 0.01 or not self.font().bold():
            self.setFont(self._font(scale))


class RangeLabel(KeptHintsLabel, MutedLabel):
    """A card's low–high, shown whole where its line has room for it, else not at all (never
    clipped; the card's tooltip has it). Selectable: QLabel measures it in a text document, so
    its hints are kept per text (``KeptHintsLabel``)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__("", parent)
        self.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.full = ""

    def set_range(self, text: str) -> None:
        self.full = text
        self._fit()

    def _fit(self) -> None:
        fits = QFontMetrics(self.font()).horizontalAdvance(self.full) <= self.width()
        text = self.full if fits else ""
        if self.text() != text:  # setText repaints the results area even when it is the same
            self.setText(text)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()


class HeadlineCard(QFrame):
    """One figure: a small caption, the value in large type, a detail line."""

    def __init__(self, key: str, caption: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName(f"card_{key}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(10, 6, 10, 6)
        lay.setSpacing(1)
        self.caption = MutedLabel(caption, self)
        self.value = FitLabel("—", VALUE_SCALE, VALUE_FLOOR, self)
        self.value.setObjectName(f"value_{key}")
        self.value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.detail = SelectableWrappedLabel("", self)  # selectable once the mouse is over it
        self.detail.setObjectName(f"detail_{key}")
        # low–high (core/ranges.py) on the caption's line, right-aligned, where the line has room
        # for it (a line of its own would take the plots' height at 1024×700); the tooltip always
        # has it, with where the band comes from.
        self.range = RangeLabel(self)
        self.range.setObjectName(f"range_{key}")
        top = QHBoxLayout()
        top.setSpacing(4)
        top.addWidget(self.caption)
        top.addWidget(self.range, 1)
        lay.addLayout(top)
        lay.addWidget(self.value)
        lay.addWidget(self.detail)
        lay.addStretch(1)
        self.state: bool | str | None = None

    def set(
        self, value: str, detail: str, tooltip: str = "", ok: bool | str | None = None,
        band: tuple[str, str] | None = None,
    ) -> None:  # fmt: skip
        """``ok``: True green, False red, "warn" amber (fits, near the limit), None plain;
        ``band``: (low–high, where it comes from)."""
        # Each call changes only what differs: a label's text set again, or a style sheet (even
        # the same one), re-polishes and repaints, and the whole results area with it.
        if self.value.text() != value:
            self.value.setText(value)
            self.value.setAccessibleName(f"{self.caption.text()}: {value}")
        if self.detail.text() != detail:
            self.detail.setText(detail)
        self.range.set_range(band[0] if band else "")
        if band is not None:
            tooltip = f"{tooltip}\n\nRange {band[0]} — {band[1]}."
        self.state = ok
        self.recolour(theme_for(self.palette(), QPalette.ColorRole.Window))
        if self.toolTip() != tooltip:
            self.setToolTip(tooltip)

    def recolour(self, theme: Theme) -> None:
        """The value in its state's colour, readable on the window's colour."""
        color = {True: theme.good, False: theme.bad, "warn": theme.warn}.get(self.state)
        style = f"color: {color};" if color else ""
        if self.value.styleSheet() != style:
            self.value.setStyleSheet(style)


class HeadlineView(QWidget):
    """A grid of headline cards plus a warnings line; colours follow the palette."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(6)
        self.cards: dict[str, HeadlineCard] = {}
        for i, (key, caption) in enumerate(HEADLINES):
            card = HeadlineCard(key, caption, self)
            grid.addWidget(card, i // 3, i % 3)
            self.cards[key] = card
        for col in range(3):
            grid.setColumnStretch(col, 1)
        self.warnings = QLabel("", self)
        self.warnings.setObjectName("warnings")
        self.warnings.setTextFormat(Qt.TextFormat.PlainText)  # they name the GPU: data
        self.warnings.setWordWrap(True)
        self.warnings.hide()
        grid.addWidget(self.warnings, 2, 0, 1, 3)
        self._recolour()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._recolour()

    def _recolour(self) -> None:
        theme = theme_for(self.palette(), QPalette.ColorRole.Window)
        for card in self.cards.values():
            card.recolour(theme)
        self.warnings.setStyleSheet(f"color: {theme.bad};")

    def set_result(self, inputs: EstimateInputs, r: EstimateResult) -> None:
        texts = headline_texts(inputs, r)
        bands = headline_ranges(inputs, r)
        for key, (value, detail, tip) in texts.items():
            ok: bool | str | None = None
            if key == "memory":
                ok = {"fits": True, "near_limit": "warn"}.get(r.layout.memory_status, False)
            self.cards[key].set(value, detail, tip, ok, bands.get(key))
        self.warnings.setText("⚠ " + "  ⚠ ".join(map(plain, r.warnings)) if r.warnings else "")
        self.warnings.setVisible(bool(r.warnings))


class BreakdownTable(QTableWidget):
    """Memory parts, FLOP parts per token, cost parts and time parts."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(0, 3, parent)
        self.setObjectName("breakdown")
        self.setHorizontalHeaderLabels(["Group", "Part", "Value"])
        self.verticalHeader().hide()
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setAlternatingRowColors(True)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        hh = self.horizontalHeader()
        hh.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        hh.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        hh.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.setAccessibleName("Breakdown table")

    def set_result(self, inputs: EstimateInputs, r: EstimateResult) -> None:
        rows = breakdown_rows(inputs, r)
        self.setRowCount(len(rows))
        previous = None
        for i, (group, item, value) in enumerate(rows):
            cells = (group if group != previous else "", item, value)
            previous = group
            for j, text in enumerate(cells):
                cell = self.item(i, j)
                if cell is None:
                    cell = QTableWidgetItem()
                    self.setItem(i, j, cell)
                cell.setText(text)
                if j == 2:
                    cell.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                if j == 0:
                    f = cell.font()
                    f.setBold(True)
                    cell.setFont(f)

    def values(self) -> list[tuple[str, str]]:
        return [(self.item(i, 1).text(), self.item(i, 2).text()) for i in range(self.rowCount())]
