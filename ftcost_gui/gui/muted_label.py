"""Secondary text (captions, notes, hints) in a muted colour that stays readable.

``color: palette(dark)`` or ``palette(mid)`` in a style sheet reads on a light window but all but
disappears on a dark one (Fusion's dark palette makes those roles darker than the window). A
``MutedLabel`` takes the window theme's muted colour (WCAG AA on the window colour) and takes it
again whenever the palette changes.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QLabel, QWidget

from ..charts.theme import theme_for


class MutedLabel(QLabel):
    def __init__(self, text: str = "", parent: QWidget | None = None):
        super().__init__(text, parent)
        self._recolour()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._recolour()

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ParentChange:
            self._recolour()
        return super().event(event)

    def _recolour(self) -> None:
        # A palette role, not a style sheet: a style sheet fixes the whole palette, and the
        # label would miss the application's next palette change.
        parent = self.parentWidget()
        palette = parent.palette() if parent is not None else QApplication.palette()
        color = QColor(theme_for(palette, QPalette.ColorRole.Window).muted)
        if self.palette().color(QPalette.ColorRole.WindowText) != color:
            own = self.palette()
            own.setColor(QPalette.ColorRole.WindowText, color)
            self.setPalette(own)
