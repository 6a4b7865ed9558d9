"""The "What fits" tab's widgets: two plots, the figures and the GPUs drawn beside the scenario's.

A thin view of ``core.what_fits.WhatFits`` worded by ``present.plan_texts``; the two GPU pickers
emit ``othersChanged(ids)``.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...charts.fits_plot import WhatFitsPlot
from ...core.what_fits import WhatFits
from ...present.plan_texts import fits_rows, fits_sentence
from ..widgets import scrolled

NONE = ""


class FitsView(QWidget):
    othersChanged = Signal(tuple)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("fits_view")
        self.by_seq = WhatFitsPlot("seq_len")
        self.by_batch = WhatFitsPlot("micro_batch")
        self.sentence = QLabel("")  # the scenario's method on its GPUs, in one sentence
        self.sentence.setObjectName("fits_sentence")
        self.sentence.setTextFormat(Qt.TextFormat.PlainText)  # it names the GPU: data
        self.sentence.setWordWrap(True)
        self.sentence.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.pickers = [QComboBox(), QComboBox()]
        row = QHBoxLayout()
        row.addWidget(QLabel("Also show:"))
        for i, box in enumerate(self.pickers):
            box.setObjectName(f"fits_gpu_{i}")
            box.setAccessibleName(f"GPU {i + 2} drawn beside the scenario's")
            box.setMinimumContentsLength(12)
            box.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            box.currentIndexChanged.connect(lambda _i: self._emit())
            row.addWidget(box, 1)
        self.table = QTableWidget(0, 4)
        self.table.setObjectName("fits_table")
        self.table.setHorizontalHeaderLabels(
            ["GPU", "Method", "Longest sequence", "Largest micro-batch"]
        )
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.setAccessibleName("What fits: longest sequence and largest micro-batch")
        plots = QSplitter(Qt.Orientation.Horizontal)
        plots.addWidget(self.by_seq)
        plots.addWidget(self.by_batch)
        plots.setChildrenCollapsible(False)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(plots)
        split.addWidget(self.table)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)
        inner = QWidget()
        lay = QVBoxLayout(inner)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.addWidget(self.sentence)
        lay.addLayout(row)
        lay.addWidget(split, 1)
        plots.setMinimumHeight(300)
        self.table.setMinimumHeight(120)
        scrolled(self, inner)
        self.fits: WhatFits | None = None

    def set_gpus(self, rows: Sequence[tuple[str, str]], chosen: Sequence[str]) -> None:
        """The catalog's GPUs in the pickers (ids and names), ``chosen`` selected."""
        for i, box in enumerate(self.pickers):
            box.blockSignals(True)
            box.clear()
            box.addItem("(none)", NONE)
            for gpu_id, name in rows:
                box.addItem(name, gpu_id)
            want = chosen[i] if i < len(chosen) else NONE
            box.setCurrentIndex(max(0, box.findData(want)))
            box.blockSignals(False)

    def _emit(self) -> None:
        ids = tuple(dict.fromkeys(b.currentData() for b in self.pickers if b.currentData()))
        self.othersChanged.emit(ids)

    def set_fits(self, fits: WhatFits) -> None:
        self.fits = fits
        self.by_seq.set_series(fits)
        self.by_batch.set_series(fits)
        own = fits.figure()
        self.sentence.setText(fits_sentence(fits, own) if own is not None else "")
        rows = fits_rows(fits)
        self.table.setRowCount(len(rows))
        for r, cells in enumerate(rows):
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c >= 2:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                self.table.setItem(r, c, item)

    def set_error(self, message: str) -> None:
        self.sentence.setText(message)
