"""Cost per run against wall-clock of the plans the search ran: the Pareto front highlighted.

Draws ``core.plan_front.PlanPoints`` and the hover texts it is given; it computes nothing. The
front is a line of bold points (the chosen plan a star), the plans it dominates faded, those over
a limit faded crosses, the scenario as it is now a ring; the deadline and the budget are dashed
lines. Both axes are logarithmic (plans span minutes to days, a few dollars to thousands).
Hovering a point shows its text; clicking it emits ``planClicked(option index)``. Neutral ink
follows the widget's palette (light or dark).
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QWidget

from ..core.plan_front import PlanPoints
from .base import PlotView
from .theme import Theme

FRONT_COLOR = "#0072B2"
BEST_COLOR = "#D55E00"
HIT_PX = 12.0  # a point within this many pixels of the cursor is the one hovered
# Tick marks of the log axes, in words: wall-clock in hours, cost in dollars.
HOUR_TICKS = (
    (1 / 60, "1 min"), (5 / 60, "5 min"), (0.25, "15 min"), (0.5, "30 min"), (1, "1 h"),
    (2, "2 h"), (4, "4 h"), (8, "8 h"), (12, "12 h"), (24, "1 d"), (48, "2 d"), (96, "4 d"),
    (168, "1 wk"), (336, "2 wk"), (720, "30 d"), (2160, "90 d"), (8760, "1 yr"),
)  # fmt: skip
USD_TICKS = tuple(
    (m * 10.0**e, f"${m * 10**e:,.0f}" if e >= 0 else f"${m * 10.0**e:g}")
    for e in range(-2, 8)
    for m in (1, 2, 5)
)


class PlanFrontPlot(PlotView):
    """The plan search's scatter (module docstring)."""

    planClicked = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__("Plans: cost per run vs wall-clock", parent, legend_column=True)
        self.legend.setColumnCount(5)  # one row under the plot: it never covers a point
        pi = self.plot_item
        pi.setLabel("bottom", "Wall-clock (h)")
        pi.setLabel("left", "Cost per run (USD)")
        pi.setLogMode(x=True, y=True)
        pi.showGrid(x=True, y=True, alpha=0.2)
        pi.setTitle(None)  # the tab says what it is; room for the points
        ink = QColor(self.theme.foreground)
        faded = QColor(ink)
        faded.setAlpha(70)
        # Points are PlotDataItems without a line: they follow the plot's log mode.
        self.dominated = pi.plot(
            [], [], pen=None, symbol="o", symbolSize=6, symbolPen=None,
            symbolBrush=pg.mkBrush(faded), name="Dominated",
        )  # fmt: skip
        self.infeasible = pi.plot(
            [], [], pen=None, symbol="x", symbolSize=7, symbolPen=pg.mkPen(faded, width=1.2),
            symbolBrush=pg.mkBrush(faded), name="Over a limit",
        )  # fmt: skip
        self.front = pi.plot(
            [], [], pen=pg.mkPen(FRONT_COLOR, width=1.5), symbol="o", symbolSize=10,
            symbolPen=pg.mkPen(ink, width=1), symbolBrush=pg.mkBrush(FRONT_COLOR),
            name="Pareto front",
        )  # fmt: skip
        self.best = pi.plot(
            [], [], pen=None, symbol="star", symbolSize=18, symbolPen=pg.mkPen(ink, width=1),
            symbolBrush=pg.mkBrush(BEST_COLOR), name="Best plan",
        )  # fmt: skip
        self.current = pi.plot(
            [], [], pen=None, symbol="o", symbolSize=14, symbolPen=pg.mkPen(ink, width=2),
            symbolBrush=None, name="This scenario",
        )  # fmt: skip
        keys = ((self.front, "Pareto front"), (self.best, "Best plan"),
                (self.dominated, "Dominated"), (self.infeasible, "Over a limit"),
                (self.current, "This scenario"))  # fmt: skip
        for item, label in keys:  # the legend row under the plot lists them
            self.legend.addItem(item, label)
        dashed = pg.mkPen(self.theme.bad, width=1.5, style=Qt.PenStyle.DashLine)
        self.deadline = pg.InfiniteLine(
            angle=90, movable=False, pen=dashed, label="deadline",
            labelOpts={"position": 0.95, "color": self.theme.bad, "anchors": [(1, 0), (1, 0)]},
        )  # fmt: skip
        self.budget = pg.InfiniteLine(
            angle=0, movable=False, pen=dashed, label="budget",
            labelOpts={"position": 0.97, "color": self.theme.bad, "anchors": [(1, 1), (1, 1)]},
        )  # fmt: skip
        for line in (self.deadline, self.budget):
            line.setVisible(False)
            pi.addItem(line, ignoreBounds=True)
        self.hover = pg.TextItem("", color=ink, border=pg.mkPen(faded), anchor=(0, 1))
        self.hover.setZValue(20)
        self.hover.setVisible(False)
        pi.addItem(self.hover, ignoreBounds=True)
        self.hover_text = ""
        self.hovered: int | None = None
        self.points: PlanPoints | None = None
        self.texts: dict[int, str] = {}
        self._ids: np.ndarray = np.array([], dtype=int)
        self._xy: np.ndarray = np.zeros((0, 2))  # log10 wall-clock, log10 cost
        for item in (self.front, self.best, self.dominated, self.infeasible):
            item.sigPointsClicked.connect(self._on_clicked)
        self.plot_widget.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.restyle(self.theme)

    def restyle(self, theme: Theme) -> None:
        """Ink, faded marks, limits and the hover box in the view's theme (light or dark)."""
        ink = QColor(theme.foreground)
        faded = QColor(ink)
        faded.setAlpha(70)
        self.dominated.setSymbolBrush(pg.mkBrush(faded))
        self.infeasible.setSymbolPen(pg.mkPen(faded, width=1.2))
        self.infeasible.setSymbolBrush(pg.mkBrush(faded))
        self.front.setSymbolPen(pg.mkPen(ink, width=1))
        self.best.setSymbolPen(pg.mkPen(ink, width=1))
        self.current.setSymbolPen(pg.mkPen(ink, width=2))
        dashed = pg.mkPen(theme.bad, width=1.5, style=Qt.PenStyle.DashLine)
        for line in (self.deadline, self.budget):
            line.setPen(dashed)
            line.label.setColor(theme.bad)
        self.hover.setColor(theme.foreground)
        self.hover.fill = pg.mkBrush(theme.legend_brush())
        self.hover.border = pg.mkPen(theme.neutral)

    # --- series ---------------------------------------------------------------------------------
    def set_series(self, points: PlanPoints, texts: dict[int, str]) -> None:
        """Draw the plans (the same points as last time draw nothing)."""
        if points == self.points and texts == self.texts:
            return
        self.points, self.texts = points, dict(texts)
        w, c = points.wall_h, points.cost_usd

        def spots(ids: tuple[int, ...]) -> dict[str, list]:
            return {"x": [w[i] for i in ids], "y": [c[i] for i in ids], "data": list(ids)}

        self.dominated.setData(**spots(points.dominated))
        self.infeasible.setData(**spots(points.infeasible))
        self.front.setData(**spots(points.front))  # joined: going faster costs more
        best = () if points.best is None else (points.best,)
        self.best.setData(**spots(best))
        if points.current is not None:
            self.current.setData(x=[points.current[0]], y=[points.current[1]])
        else:
            self.current.setData(x=[], y=[])
        self._set_limit(self.deadline, points.deadline_h)
        self._set_limit(self.budget, points.budget_usd)
        ids = (*points.front, *points.dominated, *points.infeasible)
        self._ids = np.array(ids, dtype=int)
        self._xy = np.array(
            [(math.log10(max(w[i], 1e-6)), math.log10(max(c[i], 1e-6))) for i in ids]
        ).reshape(-1, 2)
        self.plot_item.enableAutoRange()
        walls = [w[i] for i in ids] + ([points.current[0]] if points.current else [])
        costs = [c[i] for i in ids] + ([points.current[1]] if points.current else [])
        if walls:
            axis = self.plot_item.getAxis
            axis("bottom").setTicks([_ticks(HOUR_TICKS, min(walls), max(walls)), []])
            axis("left").setTicks([_ticks(USD_TICKS, min(costs), max(costs)), []])
        self._hide_hover()

    @staticmethod
    def _set_limit(line: pg.InfiniteLine, value: float | None) -> None:
        line.setVisible(value is not None and value > 0)
        if value is not None and value > 0:
            line.setValue(math.log10(value))

    # --- hover and click ------------------------------------------------------------------------
    def nearest(self, scene_pos: QPointF) -> int | None:
        """The plan drawn within HIT_PX pixels of a scene position, if any."""
        if self._ids.size == 0:
            return None
        vb = self.view_box
        pts = [vb.mapViewToScene(pg.Point(x, y)) for x, y in self._xy]
        d = np.array([(p.x() - scene_pos.x()) ** 2 + (p.y() - scene_pos.y()) ** 2 for p in pts])
        i = int(d.argmin())
        return int(self._ids[i]) if d[i] <= HIT_PX**2 else None

    def show_hover(self, ident: int | None) -> None:
        if ident is None or self.points is None:
            self._hide_hover()
            return
        self.hovered = ident
        self.hover_text = self.texts.get(ident, "")
        self.hover.setText(self.hover_text)
        x = math.log10(self.points.wall_h[ident])
        y = math.log10(self.points.cost_usd[ident])
        (x0, x1), _ = self.view_box.viewRange()
        self.hover.setAnchor((1, 1) if x > (x0 + x1) / 2 else (0, 1))
        self.hover.setPos(x, y)
        self.hover.setVisible(True)

    def _on_mouse_moved(self, pos: QPointF) -> None:
        if not self.plot_item.sceneBoundingRect().contains(pos):
            self._hide_hover()
            return
        self.show_hover(self.nearest(pos))

    def _hide_hover(self) -> None:
        self.hovered = None
        self.hover_text = ""
        self.hover.setVisible(False)

    def _on_clicked(self, _item: pg.PlotDataItem, spots: list, _event: object = None) -> None:
        if spots:
            data = spots[0].data()
            if data is not None:
                self.planClicked.emit(int(data))


def _ticks(marks: tuple[tuple[float, str], ...], lo: float, hi: float) -> list[tuple[float, str]]:
    """The marks within [lo/2, 2·hi] at log10 positions (the axes are logarithmic)."""
    return [(math.log10(v), t) for v, t in marks if lo / 2 <= v <= hi * 2]
