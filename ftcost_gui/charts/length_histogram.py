"""Example lengths as measured: sequences per length bin on a log scale, and the max length."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from ..core.histogram import LengthHistogram
from .base import PlotView

BAR_COLOR = "#0072B2"
CAP_COLOR = "#D55E00"


class LengthHistogramPlot(PlotView):
    """A measured histogram (core/histogram.py): one step per bin, lengths on a log axis (the
    bins are 16 per octave, so equal widths there), and the max sequence length that truncates."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__("Sequence lengths", parent)
        pi = self.plot_item
        pi.setLabel("bottom", "tokens per sequence")
        pi.setLabel("left", "sequences per bin")
        pi.setLogMode(x=True, y=False)
        pi.setMouseEnabled(x=False, y=False)
        self.bars = pg.PlotDataItem(
            [0, 1], [0], stepMode="center", fillLevel=0, brush=pg.mkBrush(0, 114, 178, 110),
            pen=pg.mkPen(BAR_COLOR, width=1.5), name="Sequences",
        )  # fmt: skip
        pi.addItem(self.bars)
        self.cap = pg.InfiniteLine(
            angle=90, movable=False, pen=pg.mkPen(CAP_COLOR, width=1.5, style=Qt.PenStyle.DashLine)
        )
        self.cap.setVisible(False)
        pi.addItem(self.cap, ignoreBounds=True)
        self.cap_label = pg.TextItem("", color=CAP_COLOR, anchor=(1, 0))
        pi.addItem(self.cap_label, ignoreBounds=True)
        self.histogram: LengthHistogram | None = None

    def set_histogram(self, h: LengthHistogram | None, max_seq_len: int | None = None) -> None:
        """Draw ``h`` (None clears); ``max_seq_len`` marks where sequences are truncated."""
        self.histogram = h
        if h is None:
            self.bars.setData([0, 1], [0], stepMode="center")
            self.cap.setVisible(False)
            self.cap_label.setText("")
            return
        edges = np.array([max(e, 0.5) for e in h.edges], dtype=float)  # log axis: no 0
        self.bars.setData(edges, np.array(h.counts, dtype=float), stepMode="center")
        top = max(h.counts)
        if max_seq_len:
            self.cap.setValue(math.log10(max_seq_len))
            self.cap.setVisible(True)
            self.cap_label.setText(f"max length {max_seq_len:,}")
            self.cap_label.setPos(math.log10(max_seq_len), top * 1.05)
        lo = math.log10(edges[0])
        hi = math.log10(max(edges[-1], max_seq_len or 0))
        self.plot_item.setXRange(lo, hi, padding=0.04)
        self.plot_item.setYRange(0, top * 1.12, padding=0)
