"""The status bar's summary line: elided to the window's width, hidden under a passing message.

``QStatusBar`` hides its normal widgets while a temporary message shows, but only widgets that
are already visible: a message shown while the window is being built (a file opened from the
command line, a catalog problem) left the summary visible under it once the window appeared, the
two lines drawn over each other. ``SummaryLine`` follows the bar's ``messageChanged`` itself.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QStatusBar, QStyleOption, QWidget

from ..kept_hints import KeptHintsLabel
from ..rich_text import rich_text


class SummaryLine(KeptHintsLabel):
    """A one-line plain-text label that elides on the right instead of widening the window.

    ``text()`` stays the whole line; the tooltip shows it whole when it does not fit. Its hints
    are QLabel's, kept per text (``KeptHintsLabel``): each edit sets it.
    """

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)  # names are data

    def follow(self, bar: QStatusBar) -> None:
        """Hide while ``bar`` shows a temporary message, whenever it was shown."""
        bar.messageChanged.connect(self._on_message)
        self._on_message(bar.currentMessage())

    def _on_message(self, message: str) -> None:
        self.setVisible(not message)

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        return QSize(self.fontMetrics().horizontalAdvance("…") * 4, hint.height())

    def shown_text(self) -> str:
        """What is painted: the text elided to the label's width."""
        width = self.contentsRect().width()
        return self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, width)

    def setText(self, text: str) -> None:
        super().setText(text)
        self._update_tip()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._update_tip()

    def _update_tip(self) -> None:
        # The whole line when it is cut; a tooltip guesses rich text and the names are data.
        cut = self.shown_text() != self.text()
        self.setToolTip(rich_text(self.text()) if cut else "")

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        opt = QStyleOption()
        opt.initFrom(self)
        align = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        self.style().drawItemText(
            painter,
            self.contentsRect(),
            int(align),
            opt.palette,
            self.isEnabled(),
            self.shown_text(),
            self.foregroundRole(),
        )
        painter.end()
