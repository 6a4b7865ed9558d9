"""Cost per run vs MFU: on-demand and spot lines, the current MFU, the well-tuned band."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from pyqtgraph.graphicsItems.PlotCurveItem import PlotCurveItem
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QWidget

from ..core.series import WELL_TUNED_MFU_PCT, CostCurve, CostPoint
from ..core.units import fmt_usd
from .base import PlotView
from .marker import Marker
from .plot_label import PlotLabel
from .theme import Theme

BAND = WELL_TUNED_MFU_PCT
OD_COLOR = "#0072B2"
SPOT_COLOR = "#D55E00"


def _curve(plot_item: pg.PlotItem, **opts) -> PlotCurveItem:
    """A line of the plot, as ``PlotItem.plot`` draws it without its ``PlotDataItem``: the
    ``PlotCurveItem`` that item would paint, given its data directly (``PlotDataItem.setData``
    costs ~270 µs a call in Python around the curve's ~35; an edit gives four lines data).
    The data item hands its curve ``connect="all"`` (finite data, checked) or ``"finite"``;
    "finite" draws finite data as "all" (pyqtgraph's arrayToQPath / arrayToLineSegments) and
    leaves gaps at non-finite points as the data item would. Nothing else differs for lines
    without symbols, log scales, clipping or downsampling, which these never have."""
    curve = PlotCurveItem(connect="finite", **opts)  # (its module: PlotDataItem loads it; the
    # package's name would load the rest of pyqtgraph, charts/pg_lite.py)
    plot_item.addItem(curve)
    return curve


class CostPlot(PlotView):
    """The cost curve over MFU 10–60 % (core.series.CostCurve); hovering shows the costs."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__("Cost per run vs MFU", parent)
        pi = self.plot_item
        pi.setLabel("bottom", "MFU (%)")
        pi.setLabel("left", "USD per run")
        pi.showGrid(x=False, y=True, alpha=0.25)
        pi.setMouseEnabled(x=False, y=False)
        self.band = pg.LinearRegionItem(values=BAND, movable=False)
        self.band.setZValue(-10)
        pi.addItem(self.band)
        self.band_label = PlotLabel("well-tuned 35–55%", anchor=(0.5, 1))
        pi.addItem(self.band_label)
        # The cost range at each MFU (core/ranges.py): cheapest offer and communication as
        # modelled (lower dotted line), dearest offer with none hidden (upper).
        # (no legend entry: where the offers and communication add nothing the lines lie on the
        # on-demand curve; the tooltip explains them)
        self.range_high = _curve(pi)
        self.range_low = _curve(pi)
        self.od_curve = _curve(pi, pen=pg.mkPen(OD_COLOR, width=2.5), name="On-demand")
        self.spot_curve = _curve(
            pi, pen=pg.mkPen(SPOT_COLOR, width=2.5, style=Qt.PenStyle.DashLine), name="Spot"
        )
        # The whole cost range of the current point, MFU band included.
        self.range_bar = pg.ErrorBarItem(x=np.zeros(0), y=np.zeros(0), beam=1.2)
        pi.addItem(self.range_bar)
        self.marker = Marker(size=11, name="Current MFU")
        # One brush per colour, kept: pyqtgraph renders a symbol again for each new brush.
        self._od_brush, self._spot_brush = pg.mkBrush(OD_COLOR), pg.mkBrush(SPOT_COLOR)
        pi.addItem(self.marker)
        self.plot_widget.setToolTip(
            "Cost per run against MFU. Dotted: the cost range at each MFU, from the cheapest "
            "offer of this GPU with communication overlapping as modelled to the dearest with "
            "none hidden. The bar on the current point: its whole range, the MFU band included."
        )
        self.cursor = pg.InfiniteLine(angle=90, movable=False)
        self.cursor.setVisible(False)
        pi.addItem(self.cursor, ignoreBounds=True)
        self.hover = pg.TextItem("", anchor=(0, 1))
        self.hover.setZValue(20)
        self.hover.setVisible(False)
        pi.addItem(self.hover, ignoreBounds=True)
        self.hover_text = ""
        self.price_word = "on-demand"  # the solid line's price: on-demand or a committed rate
        self.x = np.array([])
        self.od = np.array([])
        self.spot: np.ndarray | None = None
        self.current: tuple[float, float, float | None] | None = None
        self._curve: CostCurve | None = None
        self.plot_widget.scene().sigMouseMoved.connect(self._on_scene_mouse_moved)
        self.restyle(self.theme)

    def restyle(self, theme: Theme) -> None:
        if not hasattr(self, "hover"):  # the base class themes before the items exist
            return
        fill, edge = QColor(theme.band), QColor(theme.band)
        fill.setAlpha(40)
        edge.setAlpha(90)
        self.band.setBrush(pg.mkBrush(fill))
        for line in self.band.lines:
            line.setPen(pg.mkPen(edge))
        self.band_label.setColor(theme.good)
        self.marker.setPen(pg.mkPen(theme.foreground, width=1.5))
        self.marker.setBrush(pg.mkBrush(theme.background))
        self.cursor.setPen(pg.mkPen(theme.neutral, width=1))
        self.hover.setColor(theme.foreground)
        self.hover.fill = pg.mkBrush(theme.legend_brush())
        self.hover.border = pg.mkPen(theme.neutral)
        self.hover.update()
        for line in (self.range_low, self.range_high):
            line.setPen(pg.mkPen(OD_COLOR, width=1.2, style=Qt.PenStyle.DotLine))
        self.range_bar.setData(pen=pg.mkPen(theme.foreground, width=1.5))

    def set_series(self, curve: CostCurve, now: CostPoint, price_word: str = "on-demand") -> None:
        """The curves (redrawn only when they changed: an MFU edit moves the marker alone).
        ``price_word`` names the solid line's price: 'on-demand', '1-year committed' …"""
        if price_word != self.price_word:
            self.price_word = price_word
            label = self.legend.getLabel(self.od_curve)
            if label is not None:
                label.setText(price_word[:1].upper() + price_word[1:])
        if curve != self._curve:
            self._curve = curve
            self._set_curves(curve)
        self._set_marker(now)

    def _set_curves(self, curve: CostCurve) -> None:
        self.x = np.array(curve.mfu_pct)
        self.od = np.array(curve.on_demand_usd)
        self.spot = np.array(curve.spot_usd, dtype=float) if curve.spot_usd is not None else None
        self.od_curve.setData(self.x, self.od)
        if curve.low_usd and curve.high_usd:
            self.range_low.setData(self.x, np.array(curve.low_usd))
            self.range_high.setData(self.x, np.array(curve.high_usd))
        else:
            self.range_low.setData([], [])
            self.range_high.setData([], [])
        if self.spot is not None:
            self.spot_curve.setData(self.x, self.spot)
            self.spot_curve.setVisible(True)
        else:
            self.spot_curve.setData([], [])
            self.spot_curve.setVisible(False)

    def _set_marker(self, now: CostPoint) -> None:
        mfu, cur_od, cur_spot = now.mfu_pct, now.on_demand_usd, now.spot_usd
        self.current = (mfu, cur_od, cur_spot)
        spots = [{"pos": (mfu, cur_od), "brush": self._od_brush}]
        if cur_spot is not None:
            spots.append({"pos": (mfu, cur_spot), "brush": self._spot_brush})
        self.marker.setData(spots)
        self.range_now = (now.low_usd, now.high_usd)
        if now.low_usd is not None and now.high_usd is not None:
            self.range_bar.setData(
                x=np.array([mfu]), y=np.array([cur_od]),
                top=np.array([now.high_usd - cur_od]), bottom=np.array([cur_od - now.low_usd]),
            )  # fmt: skip
        else:
            self.range_bar.setData(x=np.zeros(0), y=np.zeros(0))
        ymax = max(float(self.od.max()), cur_od)  # the range may reach past the top
        if self.spot is not None:
            ymax = max(ymax, float(self.spot.max()))
        xmin, xmax = min(8.0, mfu - 2), max(62.0, mfu + 2)
        # Both at once: each ViewBox.setRange call turns auto-range off, works the view range
        # out and tells every item of the view (the same ranges as two calls).
        self.plot_item.setRange(xRange=(xmin, xmax), yRange=(0, ymax * 1.08), padding=0)
        self.band_label.setPos(sum(BAND) / 2, ymax * 0.01)

    def values_at(self, mfu_pct: float) -> tuple[float, float, float | None] | None:
        """(MFU %, on-demand, spot) interpolated on the sweep; None outside it."""
        if self.x.size == 0 or not self.x[0] <= mfu_pct <= self.x[-1]:
            return None
        od = float(np.interp(mfu_pct, self.x, self.od))
        spot = float(np.interp(mfu_pct, self.x, self.spot)) if self.spot is not None else None
        return mfu_pct, od, spot

    def _on_scene_mouse_moved(self, pos: QPointF) -> None:
        """The cursor line and the hover box at the mouse's MFU (``_hover_at`` says what)."""
        if not self.plot_item.sceneBoundingRect().contains(pos):
            self._hide_hover()
            return
        mfu = self.view_box.mapSceneToView(pos).x()
        (x0, x1), (y0, y1) = self.view_box.viewRange()
        shown = self._hover_at(mfu, y0, y1)
        if shown is None:
            self._hide_hover()
            return
        self.hover_text, y = shown
        self.hover.setText(self.hover_text)
        # Keep the box inside the view: flip to the left of the cursor past the middle.
        self.hover.setAnchor((1, 1) if mfu > (x0 + x1) / 2 else (0, 1))
        self.hover.setPos(mfu, y)
        self.hover.setVisible(True)
        self.cursor.setValue(mfu)
        self.cursor.setVisible(True)

    def _hover_at(self, mfu: float, y0: float, y1: float) -> tuple[str, float] | None:
        """The hover text at ``mfu`` and the height of its box (the view spans y0–y1 per run);
        None off the curve."""
        vals = self.values_at(mfu)
        if vals is None:
            return None
        _, od, spot = vals
        text = f"MFU {mfu:.1f}%\n{self.price_word} {fmt_usd(od)}"
        if spot is not None:
            text += f"\nspot {fmt_usd(spot)}"
        return text, max(od, y0 + 0.35 * (y1 - y0))

    def _hide_hover(self) -> None:
        self.hover_text = ""
        self.hover.setVisible(False)
        self.cursor.setVisible(False)
