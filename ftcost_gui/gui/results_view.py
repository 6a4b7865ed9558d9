"""Headline figures in large type and a breakdown table, both read from one EstimateResult."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QGridLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..core.inputs import EstimateInputs
from ..core.results import EstimateResult
from ..present.figures import HEADLINES, breakdown_rows, headline_texts

__all__ = ["HEADLINES", "BreakdownTable", "HeadlineView", "breakdown_rows", "headline_texts"]


class HeadlineCard(QFrame):
    """One figure: a small caption, the value in large type, a detail line."""

    def __init__(self, key: str, caption: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName(f"card_{key}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(10, 6, 10, 6)
        lay.setSpacing(1)
        self.caption = QLabel(caption, self)
        self.caption.setStyleSheet("color: palette(dark);")
        self.value = QLabel("—", self)
        self.value.setObjectName(f"value_{key}")
        font = QFont(self.value.font())
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setBold(True)
        self.value.setFont(font)
        self.value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.detail = QLabel("", self)
        self.detail.setObjectName(f"detail_{key}")
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.caption)
        lay.addWidget(self.value)
        lay.addWidget(self.detail)
        lay.addStretch(1)

    def set(self, value: str, detail: str, tooltip: str = "", ok: bool | str | None = None) -> None:
        """``ok``: True green, False red, "warn" amber (fits, near the limit), None plain."""
        self.value.setText(value)
        self.detail.setText(detail)
        color = {True: "color: #1b5e20;", False: "color: #b71c1c;", "warn": "color: #b45f06;"}
        self.value.setStyleSheet(color.get(ok, ""))
        self.setToolTip(tooltip)
        self.value.setAccessibleName(f"{self.caption.text()}: {value}")


class HeadlineView(QWidget):
    """A grid of headline cards plus a warnings line."""

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
        self.warnings.setWordWrap(True)
        self.warnings.setStyleSheet("color: #b71c1c;")
        self.warnings.hide()
        grid.addWidget(self.warnings, 2, 0, 1, 3)

    def set_result(self, inputs: EstimateInputs, r: EstimateResult) -> None:
        texts = headline_texts(inputs, r)
        for key, (value, detail, tip) in texts.items():
            ok: bool | str | None = None
            if key == "memory":
                ok = {"fits": True, "near_limit": "warn"}.get(r.layout.memory_status, False)
            self.cards[key].set(value, detail, tip, ok)
        self.warnings.setText("⚠ " + "  ⚠ ".join(r.warnings) if r.warnings else "")
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
