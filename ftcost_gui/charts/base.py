"""Shared plumbing: a plot (plus an optional legend column) with PNG/SVG export in its menu.

The plots follow the application's palette (``theme.theme_for``): paper, ink and the colours
that carry text are re-read when the palette changes (a dark system scheme switched on while the
window is open). The report fixes the light ``PAPER`` theme instead (``use_theme``).
"""

from __future__ import annotations

from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QEvent, Qt, Signal
from PySide6.QtGui import QAction, QColor, QFontMetrics
from PySide6.QtWidgets import QGraphicsWidget, QMenu, QVBoxLayout, QWidget

from ..qt_compat import guard_refcount_leak
from .axis import FastAxis, title_once
from .menu_view_box import MenuViewBox
from .theme import Theme, theme_for

guard_refcount_leak()
pg.setConfigOptions(antialias=True)  # colours come from each view's theme, not global options
AXES = ("left", "bottom")
HIDDEN_AXES = ("top", "right")
LEGEND_COLUMNS = 3  # a legend below the plot: at most this many columns
LEGEND_MARGIN_PX = 12
PLOT_CHROME_PX = (60, 93)  # axes and title around the data area until laid out (1024×700)
LEGEND_PAD_PX = 4  # a legend column's margins (pyqtgraph's 9 px: 10 px more for the plot)
LEGEND_ROW_SPACING = -8  # 13 px rows of 8 pt labels (pyqtgraph's text items carry 4 px margins)
LAYOUT_PAD_PX = 3  # around a plot with a legend column (pyqtgraph's 9 px)
MIN_PLOT_PX = 120  # the least height of a plot's data area worth keeping under its legend
MIN_PLOT_W_PX = 110  # the least width of a data area beside a legend column
TITLE_ROW_PX = 30  # pyqtgraph's title row (PlotItem.setTitle)
X_LABEL_PX = 17  # an x-axis title under the tick labels
TITLE_WRAP_PX = 18  # a second line of it


class LegendLabel(pg.LabelItem):
    """A legend's label that is not laid out again for the text and style it already shows:
    the plot's theme sets each label's colour when the plot is first shown, most often the
    colour it was made in (``LabelItem.setText`` rebuilds its rich text and asks the layout
    again whatever it is given).

    Its bounding rectangle and shape are Qt's own (the widget's ``rect()``): pyqtgraph's Python
    ones map its geometry from the parent, the same rectangle for a widget with no transform of
    its own, but the scene asks for it ~10 times an edit through a Python call."""

    boundingRect = QGraphicsWidget.boundingRect
    shape = QGraphicsWidget.shape  # (pyqtgraph's keeps a path its own boundingRect resets)

    def setText(self, text, **args) -> None:
        shown = _label_style(text, {**self.opts, **args})
        if shown == getattr(self, "_shown", None):
            self.text = text
            self.opts.update(args)
            return
        super().setText(text, **args)
        self._shown = shown


class LegendSample(pg.ItemSample):
    """pyqtgraph's legend sample with Qt's own bounding rectangle: the widget's ``rect()``, its
    fixed 20 × 20 px, which pyqtgraph's Python ``boundingRect`` returns as a constant (asked
    ~16 times an edit through a Python call)."""

    boundingRect = QGraphicsWidget.boundingRect


def _label_style(text: str, opts: dict) -> tuple:
    """What ``LabelItem.setText`` writes its HTML from (and lays it out by: ``justify``)."""
    color = opts["color"] if opts.get("color") is not None else pg.getConfigOption("foreground")
    keys = ("family", "size", "bold", "italic", "justify")
    return (text, pg.mkColor(color).name(QColor.NameFormat.HexArgb), *map(opts.get, keys))


def legend_row(legend: pg.LegendItem, item: object, name: str) -> tuple[object, pg.LabelItem]:
    """(sample, label) of ``item`` named ``name``, made as ``LegendItem.addItem`` makes them."""
    label = LegendLabel(
        name, color=legend.opts["labelTextColor"], justify="left", size=legend.opts["labelTextSize"]
    )
    sample = item if isinstance(item, legend.sampleType) else legend.sampleType(item)
    sample.sigClicked.connect(legend.sigSampleClicked)
    return sample, label


class PlotView(QWidget):
    """Owns one GraphicsLayoutWidget; ``exportRequested('png'|'svg')`` asks for a path."""

    exportRequested = Signal(str)
    #: The x ticks name the bars (methods, scenarios): the axis title may go in a short plot.
    SPARE_X_LABEL = False

    def __init__(self, title: str, parent: QWidget | None = None, legend_column: bool = False):
        super().__init__(parent)
        self.plot_widget = pg.GraphicsLayoutWidget(self)
        self.plot_widget.setAccessibleName(title)
        self.title = title
        self.theme: Theme = theme_for(self.palette())
        self._fixed_theme: Theme | None = None
        self.plot_widget.setMinimumSize(260, 200)
        # The shown axes paint their grid lines as pixel rows (charts/axis.py).
        axes = {side: FastAxis(side) for side in AXES}
        # Its right-click menu is built on first use (charts/menu_view_box.py).
        self.plot_item: pg.PlotItem = self.plot_widget.addPlot(
            row=0, col=0, title=title, axisItems=axes, viewBox=MenuViewBox()
        )
        for side in HIDDEN_AXES:  # pyqtgraph's own, hidden: they set their titles once too
            title_once(self.plot_item.getAxis(side))
        self.plot_item.showGrid(y=True, alpha=0.25)
        # Major and minor ticks only: the third tick level's faint grid lines cost ~8 ms of axis
        # painting per redraw (benchmarks/bench_gui.py) and add nothing readable.
        for side in AXES:
            self.plot_item.getAxis(side).setStyle(maxTickLevel=1)
        self._legend_inside = not legend_column
        # Legend entries made by ``show_legend``, kept (hidden) while not listed: (item, name) →
        # (sample, label). pyqtgraph's LegendItem closes the entries it removes.
        self._legend_entries: dict[tuple[object, str], tuple[object, pg.LabelItem]] = {}
        self._x_label_spared = False
        if legend_column:
            # Below the plot in three columns: never covers data and never clipped, even when
            # the plot is only ~300 px wide (1024-px windows).
            # Its labels are made in the theme's colour (set again, unchanged, when first shown).
            self.legend = pg.LegendItem(
                labelTextSize="8pt",
                labelTextColor=self.theme.foreground,
                verSpacing=LEGEND_ROW_SPACING,
                colCount=LEGEND_COLUMNS,
                sampleType=LegendSample,
            )
            self.legend.layout.setContentsMargins(*(LEGEND_PAD_PX,) * 4)
            self.plot_widget.ci.layout.setContentsMargins(*(LAYOUT_PAD_PX,) * 4)
            self.plot_widget.addItem(self.legend, row=1, col=0)
            self._legend_at = (1, 0)
        else:
            self.legend = self.plot_item.addLegend(
                offset=(-6, 6),
                labelTextSize="8pt",
                verSpacing=-6,
                brush=pg.mkBrush(self.theme.legend_brush()),
                sampleType=LegendSample,
            )
        self.view_box: MenuViewBox = self.plot_item.getViewBox()
        # Replace the scene's generic "Export..." (its SVG exporter is broken with Qt >= 6.11).
        self.plot_widget.scene().contextMenu = []
        self.view_box.on_menu(self._add_export_actions)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.plot_widget)

    def _add_export_actions(self, menu: QMenu) -> None:
        menu.addSeparator()
        self._png_action = menu.addAction("Export plot as PNG…")
        self._svg_action = menu.addAction("Export plot as SVG…")
        # Bound methods, not lambdas over ``self``: a connection keeps a lambda, and with it
        # this widget, alive for as long as the action is (tests/gui/test_menu_view_box.py).
        self._png_action.triggered.connect(self._export_png)
        self._svg_action.triggered.connect(self._export_svg)

    def _export_png(self) -> None:
        self.exportRequested.emit("png")

    def _export_svg(self) -> None:
        self.exportRequested.emit("svg")

    @property
    def png_action(self) -> QAction:
        """The menu's "Export plot as PNG…" (the menu is built if it is not yet)."""
        self.view_box.menu  # noqa: B018  (builds it)
        return self._png_action

    @property
    def svg_action(self) -> QAction:
        self.view_box.menu  # noqa: B018  (builds it)
        return self._svg_action

    # --- the legend ----------------------------------------------------------------------------
    def show_legend(self, entries: Sequence[tuple[object, str]]) -> None:
        """The legend lists ``entries`` ((plot item, name), in order), laid out as
        ``LegendItem.addItem`` lays them out one by one, from entries made once and kept: a part
        leaving the legend and coming back (CPU offload off and on) makes no new label items."""
        legend = self.legend
        layout = legend.layout
        for i in range(layout.count() - 1, -1, -1):
            layout.removeAt(i)
        wanted = []
        for item, name in entries:
            entry = self._legend_entries.get((item, name))
            if entry is None:
                entry = self._legend_entries[(item, name)] = legend_row(legend, item, name)
            wanted.append(entry)
        for sample, label in legend.items:
            if (sample, label) not in wanted:
                sample.hide()
                label.hide()
        legend.items = wanted
        for i, (sample, label) in enumerate(wanted):
            # Stacked as if made now, in this order: a row's swatch overlaps the next row's.
            sample.setZValue(2 * i)
            label.setZValue(2 * i + 1)
            sample.show()
            label.show()
            legend._addItemToLayout(sample, label)
        if self._legend_inside:  # placed by hand over the data: it sizes itself
            legend.updateSize()
        self.fit_legend()
        if not self._legend_inside:
            # Below or beside the plot, the plot's layout sizes it: its height is its entries'
            # (a row fewer or more). Given that height now, its labels are laid out once, at
            # the size the plot's layout then confirms. ``LegendItem.updateSize`` set a size of
            # its own from the labels' sizes as last laid out, and every label was laid out
            # again at each (three times per CPU-offload toggle, two sizes no paint showed).
            hint = legend.effectiveSizeHint(Qt.SizeHint.PreferredSize)
            legend.resize(legend.geometry().width(), hint.height())  # (.size: pyqtgraph's)

    # --- the legend column -------------------------------------------------------------------
    def fit_legend(self) -> None:
        """A legend outside the plot goes below it (in as many columns as the width holds, 3 at
        most) or, when that leaves the plot less room, beside it in one column: neither the
        legend nor the plot is cut in a small window, and the plot keeps the larger area.

        The chrome around the data area (title, axes, their labels) and the legend's frame are
        measured from the laid-out items, not guessed: at 1024×700 a guess of 70 px for 93 px of
        chrome left the memory chart a 66–79 px data area under its five legend rows."""
        if self._legend_inside or not self.legend.items:
            return
        # The widget's own rect: a hidden view's viewport keeps its old size until shown.
        view = self.plot_widget.contentsRect()
        ci = self.plot_widget.ci.layout
        _left, top, _right, bottom = ci.getContentsMargins()
        width = view.width() - 2 * LEGEND_MARGIN_PX
        height = view.height() - top - bottom - ci.verticalSpacing()  # plot and legend rows
        # Sizes from the entries' own text (the laid-out labels stretch to the legend's width).
        entries = [
            (
                sample.boundingRect().width() + label.item.boundingRect().width() + 6,
                max(sample.boundingRect().height(), label.item.boundingRect().height()),
            )
            for sample, label in self.legend.items
        ]
        spacing = self.legend.layout.verticalSpacing()
        row_h = max(h for _w, h in entries) + spacing
        frame = 2 * LEGEND_PAD_PX

        def size(cols: int) -> tuple[float, float]:
            widths = [max(w for w, _h in entries[i::cols]) for i in range(min(cols, len(entries)))]
            return sum(widths) + frame, -(-len(entries) // cols) * row_h - spacing + frame

        below = next((n for n in range(LEGEND_COLUMNS, 0, -1) if size(n)[0] <= width), 1)
        below_h = size(below)[1]
        side_w, side_h = size(1)
        chrome_w, chrome_h = self._chrome()
        plot_w, plot_h = width - chrome_w, height - chrome_h
        area_below = max(0.0, plot_w) * max(0.0, plot_h - below_h)
        area_beside = max(0.0, plot_w - side_w) * max(0.0, plot_h - TITLE_WRAP_PX)
        # Beside when that leaves the larger plot, or when below would crush it (a short
        # window), as long as the plot keeps a usable width and the column fits the height.
        crushed = plot_h - below_h < MIN_PLOT_PX
        roomy = plot_w - side_w >= MIN_PLOT_W_PX and side_h <= height
        beside = (area_beside > area_below or crushed) and roomy
        # Still crushed below: a plot whose ticks name its bars spares its x-axis title.
        self._spare_x_label(crushed and not beside and self.SPARE_X_LABEL)
        self.legend.setColumnCount(1 if beside else below)
        self._place_legend(beside)
        self._fit_title(width - side_w if beside else width)

    def _chrome(self) -> tuple[float, float]:
        """(width, height) around the data area: axes, their titles, the title (one line), as
        laid out (before: from the constants)."""
        pi, vb = self.plot_item, self.view_box
        if vb.width() <= 0 or vb.height() <= 0:  # not laid out yet
            return PLOT_CHROME_PX
        title = pi.titleLabel
        extra = TITLE_WRAP_PX if "<br>" in title.text else 0.0
        spared = X_LABEL_PX if self._x_label_spared else 0.0
        return pi.width() - vb.width(), pi.height() - vb.height() - extra + spared

    def _spare_x_label(self, spare: bool) -> None:
        if spare == self._x_label_spared:
            return
        self._x_label_spared = spare
        self.plot_item.getAxis("bottom").showLabel(not spare)

    def _fit_title(self, room: float) -> None:
        """The title on one line, or on two where one line is wider than the plot's column:
        a title is the plot item's minimum width, and would push a legend beside it out of the
        view."""
        title = self.plot_item.titleLabel
        if not title.isVisible() or not title.text:
            return
        line = title.text.replace("<br>", " ")
        words = line.split(" ")
        wrap = len(words) > 1 and QFontMetrics(title.item.font()).horizontalAdvance(line) > room
        if wrap:
            cut = min(
                range(1, len(words)), key=lambda i: abs(len(" ".join(words[:i])) * 2 - len(line))
            )
            text = " ".join(words[:cut]) + "<br>" + " ".join(words[cut:])
        else:
            text = line
        if text == title.text:
            return
        title.setText(text)
        rows = 2 if wrap else 1
        self.plot_item.layout.setRowFixedHeight(0, TITLE_ROW_PX + (rows - 1) * TITLE_WRAP_PX)
        title.setMaximumHeight(TITLE_ROW_PX + (rows - 1) * TITLE_WRAP_PX)

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

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.fit_legend()  # sized while hidden (another chart mode): lay out for the real size

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
        shown = {id(label) for _sample, label in self.legend.items}
        kept = [label for _s, label in self._legend_entries.values() if id(label) not in shown]
        for label in [label for _sample, label in self.legend.items] + kept:
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
