"""The 'All scenarios' cost plot: cost per run against MFU, one colour per scenario (on-demand
solid, spot dashed), its curves painted from arrays, its legend at most half the plot
(``scenario_legend``). The memory chart and the helpers both plots share are
``scenario_plots``."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QPen
from PySide6.QtWidgets import QWidget

from ..core.series import ScenarioSeries
from ..core.units import fmt_usd
from ..io.names import for_html
from .cost_plot import BAND, CostPlot
from .curve_layer import Curve, CurveSet
from .marker import Marker
from .scenario_legend import SPOT_KEY, ScenarioLegend
from .scenario_plots import SCENARIO_COLORS, _once, scenario_color, short_name
from .theme import Theme


class ScenarioCostPlot(CostPlot):
    """Cost per run vs MFU: one colour per scenario, on-demand solid, spot dashed."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        pi = self.plot_item
        pi.setTitle("Cost per run by scenario")  # vs MFU: the x axis
        for item in (self.od_curve, self.spot_curve, self.marker):
            pi.removeItem(item)
        # The legend inside the plot, as the base class makes it, with rows made only for the
        # entries that can be seen (at 200 scenarios ~30 of 201; issue 17).
        if self.legend.scene() is not None:
            self.legend.scene().removeItem(self.legend)
        self.legend = pi.legend = ScenarioLegend(
            offset=(-6, 6), labelTextSize="8pt", verSpacing=-6,
            brush=pg.mkBrush(self.theme.legend_brush()),
        )  # fmt: skip
        self.legend.setParentItem(self.view_box)
        # (a bound method: a lambda over ``self`` kept the plot alive as long as the view box)
        self.view_box.sigResized.connect(self._fill_legend)
        # One item paints every scenario's curves from arrays (no graphics item per curve:
        # 400 of them took ~0.3 s to make at 200 scenarios); the curves of the scenarios not
        # selected (those an edit leaves alone) from cached images (issue 17).
        self.curve_set = CurveSet()
        self.curves: list[Curve] = []  # one per scenario, kept between calls
        self.spot_curves: list[Curve] = []  # the scenarios' that have a spot price
        self._spot_items: list[Curve | None] = []  # per scenario
        self._pens: dict[tuple[str, float, Qt.PenStyle], QPen] = {}
        self._brushes: dict[str, QBrush] = {}  # marker brush per colour, reused (its symbol
        # is rendered once per brush: pyqtgraph caches symbols by the brush object)
        self._drawn_as: list[tuple[object, object]] = []  # per scenario: (its curve, its look)
        self.markers = Marker(size=10)
        pi.addItem(self.markers)
        self.spot_key = pi.plot([], [])
        self.view_box.addItem(self.curve_set, ignoreBounds=True)  # above the markers
        self.names: tuple[str, ...] = ()
        self._drawn: object = None
        self._series: ScenarioSeries | None = None
        self.ods: list[np.ndarray] = []
        self.spots: list[np.ndarray | None] = []
        self.restyle(self.theme)

    def _fill_legend(self, *_: object) -> None:
        self.legend.fill()

    def restyle(self, theme: Theme) -> None:
        super().restyle(theme)
        if not hasattr(self, "spot_key"):  # the base classes theme before the items exist
            return
        self.markers.setPen(pg.mkPen(theme.foreground, width=1.2))
        self.spot_key.setPen(pg.mkPen(theme.muted, width=1.5, style=Qt.PenStyle.DashLine))
        if self._series is not None:  # the ink-coloured curve follows the theme
            self._drawn = None
            # Pens again (the ink follows the theme); the legend's labels stay as they are.
            self._drawn_as = [(c, (None, None, look and look[2])) for c, look in self._drawn_as]
            self.set_scenarios(self._series)

    def set_scenarios(self, series: ScenarioSeries) -> None:
        """One curve per scenario; the same curves and points as last time draw nothing.

        Curves and their legend entries are kept from one call to the next and changed in place
        (issue 17): an edit of one scenario sets that scenario's data, and the pens and labels
        of the scenarios whose name or selection changed; only a new or removed scenario adds
        or removes items (each legend entry added lays the legend out again)."""
        key = (series.names, series.active, series.curves, series.now)
        if key == self._drawn:
            return
        self._drawn = key
        self._series = series
        with _once(self.legend, "updateSize"):
            self._set_curves(series)

    def _set_curves(self, series: ScenarioSeries) -> None:
        names, active = series.names, series.active
        n = len(names)
        pi, legend = self.plot_item, self.legend
        self.x = np.array(series.curves[0].mfu_pct) if series.curves else np.array([])
        key_shown = bool(self.spot_curves)
        if key_shown and n > len(self.curves):  # the key stays the last entry
            legend.removeItem(self.spot_key)
            key_shown = False
        while len(self.curves) > n:
            item = self.curves.pop()
            legend.removeItem(item)
            self._drawn_as.pop()
            self._spot_items.pop()
        ods, spots, spots_data = [], [], []
        ymax = 0.0
        for i, (name, curve, now) in enumerate(zip(names, series.curves, series.now, strict=True)):
            color = scenario_color(i, self.theme)
            # A legend label is rich text: the name (from a file) is escaped to show as written.
            label = ("▶ " if i == active else "") + for_html(short_name(name, 28))
            look = (color, i == active, label)
            if i == len(self.curves):  # a new scenario: a new curve and legend entry
                item = self.curve_set.curve()
                item.opts["name"] = label
                legend.addItem(item, label)
                self.curves.append(item)
                self._drawn_as.append((None, (None, None, label)))
                self._spot_items.append(None)
            item = self.curves[i]
            was_curve, was_look = self._drawn_as[i]
            if curve is not was_curve and curve != was_curve:
                od = np.array(curve.on_demand_usd)
                spot = np.array(curve.spot_usd, dtype=float) if curve.spot_usd is not None else None
                item.setData(self.x, od)
                spot_item = self._spot_items[i]
                if spot is None and spot_item is not None:
                    self._spot_items[i] = spot_item = None
                elif spot is not None:
                    if spot_item is None:
                        spot_item = self._spot_items[i] = self.curve_set.curve()
                        was_look = (None, None, was_look and was_look[2])  # its pen too
                    spot_item.setData(self.x, spot)
            else:
                od, spot = self.ods[i], self.spots[i]
            if look != was_look:
                style = (
                    Qt.PenStyle.SolidLine if i < len(SCENARIO_COLORS) else Qt.PenStyle.DashDotLine
                )
                item.setPen(self._pen(color, 3.2 if i == active else 2.0, style))
                if self._spot_items[i] is not None:
                    self._spot_items[i].setPen(self._pen(color, 1.4, Qt.PenStyle.DashLine))
                if was_look is None or label != was_look[2]:  # renamed, or (un)selected
                    item.opts["name"] = label
                    legend.set_name(item, label)
            self._drawn_as[i] = (curve, look)
            ods.append(od)
            spots.append(spot)
            if spot is not None:
                ymax = max(ymax, float(spot.max()))
            brush = self._brushes.get(color)
            if brush is None:
                brush = self._brushes[color] = pg.mkBrush(color)
            spots_data.append((now.mfu_pct, now.on_demand_usd, brush))
            ymax = max(ymax, float(od.max()), now.on_demand_usd)
        self.ods, self.spots = ods, spots
        self.names = tuple(names)
        self.spot_curves = [c for c in self._spot_items if c is not None]
        # Each scenario's spot curve over its on-demand one, each scenario over the previous.
        order = [c for pair in zip(self.curves, self._spot_items, strict=True) for c in pair if c]
        live = (self.curves[active], self._spot_items[active]) if 0 <= active < n else ()
        self.curve_set.set_curves(order, live)
        if self.spot_curves and not key_shown:
            legend.addItem(self.spot_key, SPOT_KEY)
        elif key_shown and not self.spot_curves:
            legend.removeItem(self.spot_key)
        self.markers.setData(
            x=[x for x, _y, _b in spots_data],
            y=[y for _x, y, _b in spots_data],
            brush=[b for _x, _y, b in spots_data],
            symbol="o",
        )
        mfus = [now.mfu_pct for now in series.now] or [40.0]
        xmin, xmax = min(8.0, min(mfus) - 2), max(62.0, max(mfus) + 2)
        pi.setRange(xRange=(xmin, xmax), yRange=(0, (ymax or 1.0) * 1.08), padding=0)  # at once
        self.band_label.setPos(sum(BAND) / 2, (ymax or 1.0) * 0.01)
        self.od = self.ods[0] if self.ods else np.array([])
        self.spot = self.spots[0] if self.spots else None

    def _pen(self, color: str, width: float, style: Qt.PenStyle) -> QPen:
        """One pen per look, shared by the curves drawn in it (mkPen: ~0.1 ms each)."""
        key = (color, width, style)
        pen = self._pens.get(key)
        if pen is None:
            pen = self._pens[key] = pg.mkPen(color, width=width, style=style)
        return pen

    def scenario_values_at(self, mfu_pct: float) -> list[tuple[str, float, float | None]] | None:
        """(name, on-demand, spot) per scenario, interpolated on the sweep; None outside it."""
        if self.x.size == 0 or not self.x[0] <= mfu_pct <= self.x[-1]:
            return None
        out = []
        for name, od, spot in zip(self.names, self.ods, self.spots, strict=True):
            s = float(np.interp(mfu_pct, self.x, spot)) if spot is not None else None
            out.append((name, float(np.interp(mfu_pct, self.x, od)), s))
        return out

    def _hover_at(self, mfu: float, y0: float, y1: float) -> tuple[str, float] | None:
        """Every scenario's cost at ``mfu``, the box a little above the view's middle."""
        vals = self.scenario_values_at(mfu)
        if not vals:
            return None
        lines = [f"MFU {mfu:.1f}%"]
        for name, od, spot in vals:
            extra = f" (spot {fmt_usd(spot)})" if spot is not None else ""
            lines.append(f"{short_name(name, 24)}: {fmt_usd(od)}{extra}")
        return "\n".join(lines), y0 + 0.55 * (y1 - y0)
