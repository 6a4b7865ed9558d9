"""Shared plumbing: a plot (plus an optional legend column) with PNG/SVG export in its menu."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QVBoxLayout, QWidget

from ..qt_compat import guard_refcount_leak

guard_refcount_leak()
# The charts' look, for the window and the report alike: white paper, black ink, smooth lines.
pg.setConfigOptions(background="w", foreground="k", antialias=True)


class PlotView(QWidget):
    """Owns one GraphicsLayoutWidget; ``exportRequested('png'|'svg')`` asks for a path."""

    exportRequested = Signal(str)

    def __init__(self, title: str, parent: QWidget | None = None, legend_column: bool = False):
        super().__init__(parent)
        self.plot_widget = pg.GraphicsLayoutWidget(self)
        self.plot_widget.setAccessibleName(title)
        self.plot_widget.setMinimumSize(260, 200)
        self.plot_item: pg.PlotItem = self.plot_widget.addPlot(row=0, col=0, title=title)
        self.plot_item.showGrid(y=True, alpha=0.25)
        # Major and minor ticks only: the third tick level's faint grid lines cost ~8 ms of axis
        # painting per redraw (benchmarks/bench_gui.py) and add nothing readable.
        for side in ("left", "bottom"):
            self.plot_item.getAxis(side).setStyle(maxTickLevel=1)
        if legend_column:
            # Below the plot in three columns: never covers data and never clipped, even when
            # the plot is only ~300 px wide (1024-px windows).
            self.legend = pg.LegendItem(labelTextSize="8pt", verSpacing=-6, colCount=3)
            self.plot_widget.addItem(self.legend, row=1, col=0)
        else:
            self.legend = self.plot_item.addLegend(
                offset=(-6, 6),
                labelTextSize="8pt",
                verSpacing=-6,
                brush=pg.mkBrush(255, 255, 255, 200),
            )
        self.view_box: pg.ViewBox = self.plot_item.getViewBox()
        # Replace the scene's generic "Export..." (its SVG exporter is broken with Qt >= 6.11).
        self.plot_widget.scene().contextMenu = []
        menu = self.view_box.menu
        menu.addSeparator()
        self.png_action = menu.addAction("Export plot as PNG…")
        self.svg_action = menu.addAction("Export plot as SVG…")
        self.png_action.triggered.connect(lambda: self.exportRequested.emit("png"))
        self.svg_action.triggered.connect(lambda: self.exportRequested.emit("svg"))
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.plot_widget)

    @property
    def export_item(self):
        """The graphics item exported (plot and legend together)."""
        return self.plot_widget.ci
