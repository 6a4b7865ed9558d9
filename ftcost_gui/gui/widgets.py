"""Small widgets the results tabs share: a table whose rows are activated from the keyboard, and
a page that scrolls on a short window instead of squeezing its plots."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QFrame, QScrollArea, QTableView, QVBoxLayout, QWidget


class RowTable(QTableView):
    """Enter/Return on a row emits ``rowActivated(row)`` (double-click is the view's own)."""

    rowActivated = Signal(int)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        row = self.currentIndex().row()
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and row >= 0:
            self.rowActivated.emit(row)
            event.accept()
            return
        super().keyPressEvent(event)


def scrolled(owner: QWidget, inner: QWidget) -> QScrollArea:
    """Put ``inner`` in a frameless scroll area filling ``owner``: a short window scrolls the
    page rather than squeeze the plots under their minimum height."""
    scroll = QScrollArea()
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QFrame.Shape.NoFrame)
    scroll.setWidget(inner)
    outer = QVBoxLayout(owner)
    outer.setContentsMargins(0, 0, 0, 0)
    outer.addWidget(scroll)
    return scroll
