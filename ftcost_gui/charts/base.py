"""Shared plumbing: a plot (plus an optional legend column) with PNG/SVG export in its menu.

The plots follow the application's palette (``theme.theme_for``): paper, ink and the colours
that carry text are re-read when the palette changes (a dark system scheme switched on while the
window is open). The report fixes the light ``PAPER`` theme instead (``use_theme``).
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QEvent, Signal
from PySide6.QtWidgets import QVBoxLayout, QWidget

from ..qt_compat import guard_refcount_leak
from .theme import Theme, theme_for

guard_refcount_leak()
pg.setConfigOptions(antialias=True)  # colours come from each view's theme, not global options
AXES = ("left", "bottom")
LEGEND_COLUMNS = 3  # a legend below the plot: at most this many columns
LEGEND_MARGIN_PX = 12
PLOT_CHROME_PX = (60, 70)  # a plot's axes and title around its data area (width, height)
MIN_PLOT_PX = 90  # the least height of a plot's data area worth keeping under its legend


class PlotView(QWidget):
    """Owns one GraphicsLayoutWidget; ``exportRequested('png'|'svg')`` asks for a path."""

    exportRequested = Signal(str)

    def __init__(self, title: str, parent: QWidget | None = None, legend_column: bool = False):
        super().__init__(parent)
        self.plot_widget = pg.GraphicsLayoutWidget(self)
        self.plot_widget.setAccessibleName(title)
        self.title = title
        self.theme: Theme = theme_for(self.palette())
        self._fixed_theme: Theme | None = None
        self.plot_widget.setMinimumSize(260, 200)
        self.plot_item: pg.PlotItem = self.plot_widget.addPlot(row=0, col=0, title=title)
        self.plot_item.showGrid(y=True, alpha=0.25)
        # Major and minor ticks only: the third tick level's faint grid lines cost ~8 ms of axis
        # painting per redraw (benchmarks/bench_gui.py) and add nothing readable.
        for side in AXES:
            self.plot_item.getAxis(side).setStyle(maxTickLevel=1)
        self._legend_inside = not legend_column
        if legend_column:
            # Below the plot in three columns: never covers data and never clipped, even when
            # the plot is only ~300 px wide (1024-px windows).
            self.legend = pg.LegendItem(labelTextSize="8pt", verSpacing=-6, colCount=LEGEND_COLUMNS)
            self.plot_widget.addItem(self.legend, row=1, col=0)
            self._legend_at = (1, 0)
        else:
            self.legend = self.plot_item.addLegend(
                offset=(-6, 6),
                labelTextSize="8pt",
                verSpacing=-6,
                brush=pg.mkBrush(self.theme.legend_brush()),
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

    # --- the legend column -------------------------------------------------------------------
    def fit_legend(self) -> None:
        """A legend outside the plot goes below it (in as many columns as the width holds, 3 at
        most) or, when that leaves the plot less room, beside it in one column: neither the
        legend nor the plot is cut in a small window, and the plot keeps the larger area."""
        if self._legend_inside or not self.legend.items:
            return
        view = self.plot_widget.viewport()
        width, height = view.width() - 2 * LEGEND_MARGIN_PX, view.height()
        # Sizes from the entries' own text (the laid-out labels stretch to the legend's width).
        entries = [
            (
                sample.boundingRect().width() + label.item.boundingRect().width() + 6,
                max(sample.boundingRect().height(), label.item.boundingRect().height()),
            )
            for sample, label in self.legend.items
        ]
        row_h = max(h for _w, h in entries) + self.legend.layout.verticalSpacing()

        def size(cols: int) -> tuple[float, float]:
            widths = [max(w for w, _h in entries[i::cols]) for i in range(min(cols, len(entries)))]
            return sum(widths), -(-len(entries) // cols) * row_h

        below = next((n for n in range(LEGEND_COLUMNS, 0, -1) if size(n)[0] <= width), 1)
        below_h = size(below)[1]
        side_w = size(1)[0]
        plot_w, plot_h = width - PLOT_CHROME_PX[0], height - PLOT_CHROME_PX[1]
        area_below = max(0.0, plot_w) * max(0.0, plot_h - below_h)
        area_beside = max(0.0, plot_w - side_w) * max(0.0, plot_h)
        # Beside when that leaves the larger plot, or when below would crush it (a short window).
        crushed = plot_h - below_h < MIN_PLOT_PX
        beside = (area_beside > area_below or crushed) and side_w < width / 2
        self.legend.setColumnCount(1 if beside else below)
        self._place_legend(beside)
        self.legend.updateSize()

    def _place_legend(self, beside: bool) -> None:
        where = (0, 1) if beside else (1, 0)
        if where == self._legend_at:
            return
        layout = self.plot_widget.ci
        layout.removeItem(self.legend)
        layout.addItem(self.legend, row=where[0], col=where[1])
        self._legend_at = where

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit_legend()

    # --- colours --------------------------------------------------------------------------------
    def use_theme(self, theme: Theme) -> None:
        """Draw in ``theme`` from now on, whatever the palette (the report's white paper)."""
        self._fixed_theme = theme
        self._set_theme(theme)

    def event(self, event: QEvent) -> bool:
        # Polish: first shown with the palette it inherits; PaletteChange: the palette changed.
        if event.type() in (QEvent.Type.Polish, QEvent.Type.PaletteChange):
            self._set_theme(self._fixed_theme or theme_for(self.palette()))
        return super().event(event)

    def _set_theme(self, theme: Theme) -> None:
        self.theme = theme
        fg = theme.foreground
        self.plot_widget.setBackground(theme.background)
        pi = self.plot_item
        for side in AXES:
            axis = pi.getAxis(side)
            axis.setPen(pg.mkPen(fg))
            axis.setTextPen(pg.mkPen(fg))  # tick labels and the axis title
        pi.titleLabel.setText(pi.titleLabel.text, color=fg)
        self.legend.setLabelTextColor(fg)  # for labels added later; redraw those there now:
        for _sample, label in self.legend.items:
            label.setText(label.text, color=fg)
        if self._legend_inside:  # drawn over the data: a box of paper
            self.legend.setBrush(pg.mkBrush(theme.legend_brush()))
            self.legend.setPen(pg.mkPen(theme.neutral, width=0.5))
        self.restyle(theme)

    def restyle(self, theme: Theme) -> None:
        """Recolour the subclass's own items (lines, labels, markers) for ``theme``."""

    def settle(self) -> None:
        """Apply pending range changes now, not when the view paints: pyqtgraph moves its items
        in the paint that follows a range change, which schedules a second paint of the plot
        (and of every widget updated meanwhile). Called once an edit's figures are all set."""
        scene = self.plot_widget.scene()
        scene.prepareForPaint()  # the view boxes take their new ranges
        scene.prepareForPaint()  # text items follow their parents' new transforms
        # The scene's queued pass over its changed items, now: one paint of the window follows.
        QCoreApplication.sendPostedEvents(scene, QEvent.Type.MetaCall.value)

    @property
    def export_item(self):
        """The graphics item exported (plot and legend together)."""
        return self.plot_widget.ci
