"""The first window says it shows an example: which one, and how to start your own.

Shown above the results while the document is the starting example nobody has edited yet (the
first launch, File → New); gone once a field is changed or a file is opened (an example file too:
opened on purpose), and for the session once hidden.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QStyle, QWidget

from ...core.inputs import METHOD_LABELS, EstimateInputs
from ...io.names import path_name, plain
from ...present.text import fmt_count


def example_text(inputs: EstimateInputs, example: str = "") -> str:
    """'This is an example …: model, method, GPU, data; how to start your own.'"""
    method = METHOD_LABELS[inputs.training.method].split(" (")[0]
    d = inputs.data
    data = (
        f"{fmt_count(d.num_examples)} examples × {d.mean_tokens_per_example:,.0f} tokens × "
        f"{d.epochs:g} epoch{'s' if d.epochs != 1 else ''}"
        if d.mode == "examples"
        else f"{fmt_count(d.total_tokens)} tokens"
    )
    which = f"Example file {example}" if example else "An example to start from"
    open_key = QKeySequence(QKeySequence.StandardKey.Open).toString(
        QKeySequence.SequenceFormat.NativeText
    )
    return (
        f"{which}: {plain(inputs.model.name)}, {method}, {plain(inputs.hardware.gpu.name)}, "
        f"{data}. Change any field to make it yours, or open your own estimate "
        f"(File → Open, {open_key})."
    )


class ExampleBanner(QFrame):
    openRequested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("example_banner")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.AlternateBase)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(8, 4, 8, 4)
        icon = QLabel(self)
        icon.setPixmap(
            self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxInformation).pixmap(20)
        )
        lay.addWidget(icon)
        self.text = QLabel(self)
        self.text.setObjectName("example_banner_text")
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        lay.addWidget(self.text, 1)
        self.open_button = QPushButton("&Open…", self)
        self.open_button.setToolTip("Open an estimate file of your own")
        self.close_button = QPushButton("Hide", self)
        self.close_button.setToolTip("Hide this note for the session")
        lay.addWidget(self.open_button)
        lay.addWidget(self.close_button)
        self.open_button.clicked.connect(self.openRequested)
        self.close_button.clicked.connect(self.dismiss)
        self.dismissed = False
        self.hide()

    def show_for(self, inputs: EstimateInputs, example_path: Path | None = None) -> None:
        if self.dismissed:
            return
        self.text.setText(example_text(inputs, path_name(example_path) if example_path else ""))
        self.show()

    def dismiss(self) -> None:
        self.dismissed = True
        self.hide()
