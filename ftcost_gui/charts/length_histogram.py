"""Example lengths as measured: sequences per length bin on a log scale, and the max length."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from ..core.histogram import LengthHistogram
from .base import PlotView
from .plot_label import PlotLabel
from .theme import Theme

BAR_COLOR = "#0072B2"
CAP_COLOR = "#D55E00"
# Before a file is measured: an empty frame over these lengths (short prompts to long contexts)
# with a note, not pyqtgraph's range for no data (counts from -400 to 400 "× 0.001", crowded log
# ticks 0.4 … 3 tokens).
EMPTY_TOKENS = (16.0, 8192.0)
EMPTY_NOTE = "Measure a file to see how long its sequences are"


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
        # No name: one series, the title says what it is (a legend box would sit over the bars).
        self.bars = pg.PlotDataItem(
            [0, 1], [0], stepMode="center", fillLevel=0, brush=pg.mkBrush(0, 114, 178, 110),
            pen=pg.mkPen(BAR_COLOR, width=1.5),
        )  # fmt: skip
        pi.addItem(self.bars)
        self.legend.hide()  # one series: the title says what it is
        self.cap = pg.InfiniteLine(
            angle=90, movable=False, pen=pg.mkPen(CAP_COLOR, width=1.5, style=Qt.PenStyle.DashLine)
        )
        self.cap.setVisible(False)
        pi.addItem(self.cap, ignoreBounds=True)
        self.cap_label = pg.TextItem("", color=CAP_COLOR, anchor=(1, 0))
        pi.addItem(self.cap_label, ignoreBounds=True)
        self.empty_note = PlotLabel(EMPTY_NOTE, color=self.theme.muted, anchor=(0.5, 0.5))
        pi.addItem(self.empty_note, ignoreBounds=True)
        self.histogram: LengthHistogram | None = None
        self.set_histogram(None)

    def restyle(self, theme: Theme) -> None:
        if hasattr(self, "empty_note"):  # the base class themes before the items exist
            self.empty_note.setColor(theme.muted)

    def set_histogram(self, h: LengthHistogram | None, max_seq_len: int | None = None) -> None:
        """Draw ``h`` (None clears); ``max_seq_len`` marks where sequences are truncated."""
        self.histogram = h
        pi = self.plot_item
        self.bars.setVisible(h is not None)
        self.empty_note.setVisible(h is None)
        if h is None:
            self.bars.setData([1.0, 2.0], [0.0], stepMode="center")  # nothing drawn, no log(0)
            self.cap.setVisible(False)
            self.cap_label.setText("")
            lo, hi = (math.log10(t) for t in EMPTY_TOKENS)
            pi.getAxis("bottom").setTicks([length_ticks(*EMPTY_TOKENS)])
            pi.getAxis("left").setTicks([[], []])  # no counts to read
            pi.setXRange(lo, hi, padding=0.04)
            pi.setYRange(0, 1, padding=0)
            self.empty_note.setPos((lo + hi) / 2, 0.5)
            return
        pi.getAxis("left").setTicks(None)  # counts: pyqtgraph's ticks again
        edges = np.array([max(e, 0.5) for e in h.edges], dtype=float)  # log axis: no 0
        self.bars.setData(edges, np.array(h.counts, dtype=float), stepMode="center")
        top = max(h.counts)
        lo = math.log10(edges[0])
        hi = math.log10(max(edges[-1], max_seq_len or 0))
        self.cap.setVisible(bool(max_seq_len))
        self.cap_label.setText("")
        if max_seq_len:
            x = math.log10(max_seq_len)
            self.cap.setValue(x)
            self.cap_label.setText(f"max length {max_seq_len:,}")
            # beside the line, on the side with room: left of it when it is near the right edge
            right_half = hi == lo or (x - lo) / (hi - lo) > 0.6
            self.cap_label.setAnchor((1, 0) if right_half else (0, 0))
            self.cap_label.setPos(x, top * 1.22)
        self.plot_item.getAxis("bottom").setTicks([length_ticks(edges[0], 10**hi)])
        self.plot_item.setXRange(lo, hi, padding=0.04)
        self.plot_item.setYRange(0, top * 1.25, padding=0)  # room above the bars for the label


def length_ticks(lo: float, hi: float, most: int = 7) -> list[tuple[float, str]]:
    """Ticks at powers of two (1k = 1,024 tokens) on the log axis, every 1, 2, 3… octaves so that
    at most ``most`` are labelled: pyqtgraph's own log ticks crowd into unreadable minor labels."""
    first, last = max(0, math.floor(math.log2(max(lo, 1.0)))), math.ceil(math.log2(max(hi, 1.0)))
    step = max(1, math.ceil((last - first + 1) / most))
    out = []
    for k in range(first, last + 1, step):
        v = 2**k
        text = f"{v >> 20}M" if k >= 20 else f"{v >> 10}k" if k >= 10 else str(v)
        out.append((math.log10(v), text))
    return out
