"""What the results area shows while the selected scenario cannot be estimated.

It replaces the figures, the plots and the explanation, so no number on screen belongs to other
inputs (the previous file's, or the last edit that worked).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QStyle, QVBoxLayout, QWidget

from ...io.names import for_html


class EstimateFailedPage(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("estimate_failed")
        self.message = ""
        icon = QLabel(self)
        icon.setPixmap(
            self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning).pixmap(32)
        )
        icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.text = QLabel(self)
        self.text.setObjectName("estimate_failed_text")
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        row = QHBoxLayout()
        row.addWidget(icon)
        row.addWidget(self.text, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(24, 24, 24, 24)
        lay.addLayout(row)
        lay.addStretch(1)

    def set_message(self, scenario: str, message: str) -> None:
        self.message = message
        self.text.setText(
            f"<p><b>No figures for {for_html(scenario)}: its estimate failed.</b></p>"
            f"<p>{for_html(message)}</p>"
            "<p>Change an input on the left, undo the last change, or open another file; the "
            "figures come back as soon as these inputs can be estimated.</p>"
        )
