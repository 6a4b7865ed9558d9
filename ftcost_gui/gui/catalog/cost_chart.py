"""The "Which GPU" bar chart: cost per run of the first GPUs of the table, in its order."""

from __future__ import annotations

from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import QEvent
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QWidget

from ...charts.menu_view_box import MenuViewBox
from ...charts.theme import theme_for
from ...core.compare import GpuComparison
from ...core.units import fmt_usd
from ...io.names import plain
from ...qt_compat import guard_refcount_leak

guard_refcount_leak()

FIT_COLOR = "#0072B2"
CHEAPEST_COLOR = "#E69F00"
NO_FIT_COLOR = "#BBBBBB"
MAX_BARS = 40  # more bars than this cannot carry a readable name each
ROW_PX = 16  # the least height of one bar with its name (a name per bar, never overlapping)
_AXES_PX = 56  # the bottom axis, its label and the margins


def legend_html() -> str:
    """The chart's key below it (a label: it never hides a bar)."""
    items = (
        (CHEAPEST_COLOR, "★ cheapest that fits"),
        (FIT_COLOR, "fits"),
        (NO_FIT_COLOR, "does not fit"),
    )
    return " &nbsp; ".join(f"<span style='color:{c}'>■</span>&nbsp;{t}" for c, t in items)


class _NameAxis(pg.AxisItem):
    """A left axis that writes GPU names at integer positions."""

    def __init__(self) -> None:
        super().__init__("left")
        self.names: list[str] = []

    def tickValues(self, minVal, maxVal, size):
        return [(1.0, list(range(len(self.names))))]

    def tickStrings(self, values, scale, spacing):
        return [self.names[int(v)] if 0 <= int(v) < len(self.names) else "" for v in values]


class CostBarChart(pg.PlotWidget):
    """Horizontal bars: cost per run per GPU (first on top), at most ``MAX_BARS`` of them."""

    def __init__(self, parent: QWidget | None = None, legend: QLabel | None = None):
        self.name_axis = _NameAxis()
        # No right-click menu (setMenuEnabled below): its view's menu is never built (~6 ms of
        # the tab's first show; charts/menu_view_box.py).
        view = MenuViewBox(enableMenu=False)
        super().__init__(parent, axisItems={"left": self.name_axis}, viewBox=view)
        self.setObjectName("gpu_cost_chart")
        self.setAccessibleName("Cost per run for each GPU")
        pi = self.getPlotItem()
        pi.setLabel("bottom", "Cost per run (USD)")
        pi.showGrid(x=True, y=False, alpha=0.25)
        pi.setMouseEnabled(x=False, y=False)
        pi.hideButtons()
        pi.setMenuEnabled(False)
        self.getViewBox().invertY(True)
        self.bars = pg.BarGraphItem(x0=[], y=[], height=0.7, width=[], brushes=[])
        pi.addItem(self.bars)
        self.star = pg.TextItem("", anchor=(0, 0.5))
        font = QFont()
        font.setPointSizeF(8.5)
        font.setBold(True)
        self.star.setFont(font)
        pi.addItem(self.star)
        self.values: list[float] = []
        self.colors: list[str] = []
        self._rows: list[GpuComparison] = []
        self.note = ""
        self.legend = legend
        self._cheapest: GpuComparison | None = None
        self.theme = theme_for(self.palette())
        self._set_theme()

    def event(self, event: QEvent) -> bool:
        # Paper and ink follow the palette (a dark scheme switched on while the window is open).
        changed = event.type() in (QEvent.Type.Polish, QEvent.Type.PaletteChange)
        if changed and "theme" in self.__dict__:  # not while PlotWidget.__init__ builds
            self.theme = theme_for(self.palette())
            self._set_theme()
        return super().event(event)

    def _set_theme(self) -> None:
        fg = self.theme.foreground
        self.setBackground(self.theme.background)
        pi = self.getPlotItem()
        for ax in ("left", "bottom"):
            pi.getAxis(ax).setPen(pg.mkPen(fg))
            pi.getAxis(ax).setTextPen(pg.mkPen(fg))
        self.star.setColor(fg)
        if self.__dict__.get("_rows"):
            self._draw()

    def bars_that_fit(self) -> int:
        """As many bars as the height gives each a readable name (at least 3, at most 40)."""
        return max(3, min(MAX_BARS, (self.height() - _AXES_PX) // ROW_PX))

    def set_rows(self, rows: Sequence[GpuComparison], cheapest: GpuComparison | None) -> None:
        """The table's rows in its order; the first ``bars_that_fit()`` are drawn."""
        self._rows, self._cheapest = list(rows), cheapest
        self._draw()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        rows = self.__dict__.get("_rows")  # None while PlotWidget.__init__ lays itself out
        if rows and min(self.bars_that_fit(), len(rows)) != len(self.values):
            self._draw()

    def _draw(self) -> None:
        cheapest, every = self._cheapest, self._rows
        rows = every[: self.bars_that_fit()]
        # names from catalog files are data: drawn without their control or bidi characters
        names = [plain(r.gpu_name + (f" · {r.provider}" if r.provider else "")) for r in rows]
        self.values = [r.run_usd for r in rows]
        self.colors = [
            CHEAPEST_COLOR if r is cheapest else FIT_COLOR if r.fits else NO_FIT_COLOR for r in rows
        ]
        ink = self.theme.foreground
        pens = [pg.mkPen(ink, width=2) if r is cheapest else pg.mkPen(None) for r in rows]
        self.name_axis.names = names
        self.bars.setOpts(
            x0=[0.0] * len(rows),
            y=list(range(len(rows))),
            width=self.values,
            height=0.7,
            brushes=[pg.mkBrush(c) for c in self.colors],
            pens=pens or None,  # pyqtgraph 0.13 fails on an empty list of pens
        )
        pi = self.getPlotItem()
        self.note = (
            f"Bars: the first {len(rows)} of {len(every):,}" if len(rows) < len(every) else ""
        )
        if self.legend is not None:  # the key below the chart wraps; an axis label would be cut
            self.legend.setText(legend_html() + (f"<br>{self.note}" if self.note else ""))
        top = max(self.values, default=1.0) or 1.0
        pi.setXRange(0, top * 1.22, padding=0)
        pi.setYRange(-0.6, max(len(rows), 1) - 0.4, padding=0)
        shown = next((i for i, r in enumerate(rows) if r is cheapest), None)
        if cheapest is not None and shown is not None:
            self.star.setText(f"★ {fmt_usd(cheapest.run_usd)}")
            self.star.setPos(cheapest.run_usd + top * 0.01, shown)
            self.star.setVisible(True)
        else:
            self.star.setVisible(False)
        self.name_axis.picture = None
        self.name_axis.update()
