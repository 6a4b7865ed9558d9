"""What fits: memory per GPU against the sequence length or the micro-batch, one curve per method.

Draws ``core.what_fits.WhatFits`` (it computes nothing): a curve per method on a log-2 x axis,
each GPU's usable memory (solid) and total (dashed; one line when they are equal) as horizontal
lines, the scenario's own point ringed and, on the scenario's method, the boundary — the longest
sequence or the largest micro-batch that still fits on the scenario's GPU — as a marker on its
usable line. Ink follows the view's theme.
"""

from __future__ import annotations

import math
from typing import Literal

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QWidget

from ..core.what_fits import WhatFits
from ..io.names import for_html
from ..present.plan_texts import METHOD_SHORT
from .base import PlotView
from .theme import Theme

METHOD_COLORS = {
    "full_amp_adamw": "#0072B2",
    "full_adamw_8bit": "#56B4E9",
    "full_bf16_adamw": "#CC79A7",
    "lora": "#009E73",
    "qlora": "#E69F00",
}
GPU_COLORS = ("#b71c1c", "#6a1b9a", "#00695c")  # the scenario's GPU, then the others
Axis = Literal["seq_len", "micro_batch"]
TITLES = {
    "seq_len": ("Memory per GPU vs sequence length", "Sequence length (tokens per row)"),
    "micro_batch": ("Memory per GPU vs micro-batch", "Micro-batch (sequences)"),
}


class WhatFitsPlot(PlotView):
    """One of the two what-fits plots (``axis``: 'seq_len' or 'micro_batch')."""

    def __init__(self, axis: Axis, parent: QWidget | None = None):
        title, x_label = TITLES[axis]
        super().__init__(title, parent, legend_column=True)
        self.legend.setColumnCount(2)
        self.axis = axis
        pi = self.plot_item
        pi.setLabel("bottom", x_label)
        pi.setLabel("left", "Memory per GPU (GiB)")
        pi.setLogMode(x=True, y=False)
        pi.showGrid(x=True, y=True, alpha=0.2)
        pi.setMouseEnabled(x=False, y=False)
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.lines: list[pg.InfiniteLine] = []
        ink = QColor(self.theme.foreground)
        self.now = pi.plot(
            [], [], pen=None, symbol="o", symbolSize=13, symbolPen=pg.mkPen(ink, width=2),
            symbolBrush=None,
        )  # fmt: skip
        self.edge = pi.plot(
            [], [], pen=None, symbol="t1", symbolSize=12, symbolPen=pg.mkPen(ink, width=1),
            symbolBrush=pg.mkBrush(GPU_COLORS[0]),
        )  # fmt: skip
        self.gpu_keys: list[pg.PlotDataItem] = []  # legend entries of the GPU lines
        self.plot_item.setTitle(None)  # the x axis says what it is; room for the curves
        self.fits: WhatFits | None = None

    def restyle(self, theme: Theme) -> None:
        """The scenario's ring and the boundary's outline in the theme's ink."""
        if hasattr(self, "now"):
            self.now.setSymbolPen(pg.mkPen(theme.foreground, width=2))
            self.edge.setSymbolPen(pg.mkPen(theme.foreground, width=1))

    def set_series(self, fits: WhatFits) -> None:
        """Draw the curves and lines (the same series as last time draws nothing)."""
        if fits == self.fits:
            return
        self.fits = fits
        pi = self.plot_item
        curves = fits.by_seq_len if self.axis == "seq_len" else fits.by_micro_batch
        self.legend.clear()
        for method, item in list(self.curves.items()):
            if method not in {c.method for c in curves}:
                pi.removeItem(item)
                del self.curves[method]
        for c in curves:
            item = self.curves.get(c.method)
            width = 3.0 if c.method == fits.method else 1.8
            pen = pg.mkPen(METHOD_COLORS.get(c.method, "#777777"), width=width)
            if item is None:
                item = self.curves[c.method] = pi.plot([], [], pen=pen)
            item.setPen(pen)
            item.setData(list(c.x), list(c.gib))
            label = METHOD_SHORT.get(c.method, c.method)
            self.legend.addItem(item, label + (" (this run)" if c.method == fits.method else ""))
        for line in self.lines:
            pi.removeItem(line)
        self.lines = []
        # Each GPU: usable memory solid, total dashed (one line where the run may use all of
        # it), named in the legend (labels on the lines would collide: 80 GB parts sit a
        # fraction of a GiB apart).
        for g, color in zip(fits.gpus, GPU_COLORS, strict=False):
            for value, style in _gpu_lines(g.usable_gib, g.total_gib):
                pen = pg.mkPen(QColor(color), width=1.5, style=style)
                line = pg.InfiniteLine(pos=value, angle=0, movable=False, pen=pen)
                pi.addItem(line, ignoreBounds=True)
                self.lines.append(line)
            key = pg.PlotDataItem([], [], pen=pg.mkPen(QColor(color), width=1.5))
            # Rich text: the GPU's name (from a catalog file) escaped to show as written.
            self.legend.addItem(key, for_html(gpu_label(g.name, g.usable_gib, g.total_gib)))
        ticks = [(math.log10(x), _tick(x)) for x in (curves[0].x if curves else ())]
        pi.getAxis("bottom").setTicks([ticks[:: 2 if len(ticks) > 8 else 1], []])
        x_now = fits.seq_len if self.axis == "seq_len" else fits.micro_batch
        self.now.setData([x_now], [fits.current_gib])
        fig = fits.figure()
        edge = None
        if fig is not None:
            edge = fig.longest_seq_len if self.axis == "seq_len" else fig.largest_micro_batch
        if edge is not None and fits.gpus:
            self.edge.setData([edge], [fits.gpus[0].usable_gib])
        else:
            self.edge.setData([], [])
        # y: up to half again the largest GPU, so the lines and where curves cross them show
        top = max(g.total_gib for g in fits.gpus) * 1.5 if fits.gpus else 100.0
        xs = [x for c in curves for x in c.x]
        pi.setYRange(0, top, padding=0)
        if xs:
            pi.setXRange(math.log10(min(xs)), math.log10(max(xs)), padding=0.03)


def _gpu_lines(usable_gib: float, total_gib: float) -> list[tuple[float, Qt.PenStyle]]:
    if round(usable_gib, 1) == round(total_gib, 1):
        return [(total_gib, Qt.PenStyle.SolidLine)]
    return [(usable_gib, Qt.PenStyle.SolidLine), (total_gib, Qt.PenStyle.DashLine)]


def gpu_label(name: str, usable_gib: float, total_gib: float) -> str:
    """'H100 SXM 79.6 GiB', or 'A100 68.0 usable of 79.6 GiB' where the run may use less."""
    if round(usable_gib, 1) == round(total_gib, 1):
        return f"{name} {total_gib:,.1f} GiB"
    return f"{name} {usable_gib:,.1f} usable of {total_gib:,.1f} GiB"


def _tick(x: int) -> str:
    """256 → '256', 4096 → '4k', 131072 → '128k'."""
    return f"{x // 1024}k" if x >= 1024 and x % 1024 == 0 else str(x)
