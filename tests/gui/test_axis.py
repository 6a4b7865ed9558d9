"""charts/axis.py: the axes paint exactly the pixels pyqtgraph's axes paint (issue 17, nothing
the window shows changes), and the translucent grid lines are filled as pixel rows."""

from __future__ import annotations

import random

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPen

from ftcost_gui.charts.axis import FastAxis, hline_pixels


def _render(draw) -> QImage:
    image = QImage(200, 40, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor(250, 250, 250))
    painter = QPainter(image)
    draw(painter)
    painter.end()
    return image


def test_a_filled_pixel_row_is_the_line_qt_draws(qapp):
    """Cosmetic 1-px lines without antialiasing, translucent or not, square or flat caps, at
    fractional positions and painter offsets, partly outside the image: drawLine and a fill of
    ``hline_pixels`` give the same image, every time."""
    rng = random.Random(17)
    for _ in range(1500):
        x1, x2, y = rng.uniform(-5, 60), rng.uniform(100, 210), rng.uniform(-1.5, 38)
        dx, dy = rng.choice([0.0, 0.5, 0.25, 3.0, rng.uniform(-3, 3)]), rng.uniform(-3, 3)
        square = rng.random() < 0.7
        colour = QColor(20, 30, 40, rng.choice([31, 63, 127, 255]))
        pen = QPen(colour)
        pen.setCosmetic(True)
        pen.setCapStyle(Qt.PenCapStyle.SquareCap if square else Qt.PenCapStyle.FlatCap)

        def line(p, x1=x1, x2=x2, y=y, dx=dx, dy=dy, pen=pen):
            p.translate(dx, dy)
            p.setPen(pen)
            p.drawLine(QPointF(x1, y), QPointF(x2, y))

        def fill(p, x1=x1, x2=x2, y=y, dx=dx, dy=dy, square=square, colour=colour):
            p.fillRect(hline_pixels(x1 + dx, y + dy, x2 + dx, square), colour)

        assert _render(line) == _render(fill), (x1, x2, y, dx, dy, square, colour.alpha())


def _plot(axis_type, dark: bool) -> pg.PlotWidget:
    axes = {side: axis_type(side) for side in ("left", "bottom")}
    widget = pg.PlotWidget(axisItems=axes)
    widget.resize(420, 300)
    widget.setBackground("#1e1e1e" if dark else "w")
    item = widget.getPlotItem()
    item.showGrid(x=True, y=True, alpha=0.25)
    fg = "#e0e0e0" if dark else "k"
    for side in ("left", "bottom"):
        item.getAxis(side).setPen(pg.mkPen(fg))
        item.getAxis(side).setTextPen(pg.mkPen(fg))
    item.setLabel("left", "GiB")
    xs = np.linspace(0.1, 0.6, 40)
    item.plot(xs, 3.7 / xs, pen=pg.mkPen("#0072b2", width=2))
    return widget


@pytest.mark.parametrize("dark", [False, True])
def test_fast_axes_paint_what_pyqtgraph_axes_paint(qapp, dark):
    """A plot with grid lines on both axes, on screen and rendered at twice the size (the
    report's PNGs: pyqtgraph's picture path), after ranges change: identical images."""
    plots = [_plot(pg.AxisItem, dark), _plot(FastAxis, dark)]
    for widget in plots:
        widget.show()
    qapp.processEvents()
    for y_max in (None, 9.5, 41.3, 0.07):
        images = []
        for widget in plots:
            if y_max is not None:
                widget.getPlotItem().setYRange(0, y_max, padding=0.05)
            qapp.processEvents()
            screen = widget.grab().toImage()
            scaled = QImage(840, 600, QImage.Format.Format_ARGB32)
            scaled.setDevicePixelRatio(2.0)
            scaled.fill(QColor("white"))
            painter = QPainter(scaled)
            widget.scene().render(painter)
            painter.end()
            images.append((screen, scaled))
        (screen_a, scaled_a), (screen_b, scaled_b) = images
        assert screen_a == screen_b, y_max
        assert scaled_a == scaled_b, y_max
    for widget in plots:
        widget.close()


def test_grid_lines_are_filled_not_stroked(qapp, monkeypatch):
    """On screen each horizontal grid line of the left axis is one filled pixel row and never
    reaches ``drawLine`` (Qt blends a translucent cosmetic line a pixel at a time)."""
    widget = _plot(FastAxis, dark=False)
    widget.show()
    qapp.processEvents()
    axis = widget.getPlotItem().getAxis("left")
    lines: list[bool] = []  # drawLine calls from Python: is the line horizontal
    fills = {"n": 0}
    draw_line, fill_rect = QPainter.drawLine, QPainter.fillRect

    def counting_line(painter, *args):
        if len(args) == 1:
            lines.append(args[0].y1() == args[0].y2())
        else:
            lines.append(args[0].y() == args[1].y())
        return draw_line(painter, *args)

    def counting_fill(painter, *args):
        fills["n"] += 1
        return fill_rect(painter, *args)

    monkeypatch.setattr(QPainter, "drawLine", counting_line)
    monkeypatch.setattr(QPainter, "fillRect", counting_fill)
    axis.picture = None  # new specs, as after a range change
    image = QImage(widget.size(), QImage.Format.Format_ARGB32_Premultiplied)
    painter = QPainter(image)
    axis.paint(painter, None, None)
    painter.end()
    assert axis._specs is not None
    grid = [spec for spec in axis._specs[2] if spec[1].y() == spec[2].y()]
    assert len(grid) >= 4
    assert fills["n"] >= len(grid)
    assert lines and not any(lines)  # the axis line (vertical) only
    widget.close()


def test_range_changes_do_not_set_the_axis_title_again(qapp, monkeypatch):
    """pyqtgraph sets an axis title's HTML on every range change (each edit); the title is set
    only when it reads differently (a new label, a palette change)."""
    widget = _plot(FastAxis, dark=False)
    widget.show()
    qapp.processEvents()
    axis = widget.getPlotItem().getAxis("left")
    calls: list[str] = []
    set_html = type(axis.label).setHtml
    ours = {id(axis.label), id(widget.getPlotItem().getAxis("bottom").label)}

    def counting(item, html):
        if id(item) in ours:  # (the hidden top and right axes are pyqtgraph's)
            calls.append(html)
        set_html(item, html)

    monkeypatch.setattr(type(axis.label), "setHtml", counting)
    for y_max in (9.5, 41.3, 12.0, 30.0):
        widget.getPlotItem().setYRange(0, y_max)
        qapp.processEvents()
    assert calls == [], calls
    axis.setLabel("USD per run")
    axis.setTextPen(pg.mkPen("#e0e0e0"))
    assert len(calls) == 2 and "USD per run" in calls[-1] and "#e0e0e0" in calls[-1]
    widget.close()


def test_tick_labels_are_measured_once(qapp, monkeypatch):
    """Each tick label is laid out to measure it the first time it is drawn, not on every
    range change that brings it back."""
    widget = _plot(FastAxis, dark=False)
    widget.show()
    qapp.processEvents()
    measured: list[str] = []
    bounding = QPainter.boundingRect

    def counting(painter, *args):
        measured.append(args[-1])
        return bounding(painter, *args)

    monkeypatch.setattr(QPainter, "boundingRect", counting)
    for _ in range(2):
        for y_max in (9.5, 41.3, 0.07):
            widget.getPlotItem().setYRange(0, y_max, padding=0)
            widget.grab()
    assert measured and len(measured) == len(set(measured))
    widget.close()


def test_a_plots_hidden_axes_set_their_titles_once(qtbot, monkeypatch):
    """pyqtgraph's PlotItem has four axes, top and right hidden; those too set their titles'
    HTML on every range change. The charts' hidden axes set it only when it changes: hidden
    and of no size, as pyqtgraph leaves them, and no HTML set by range changes."""
    from ftcost_gui.charts import CostPlot

    plot = CostPlot()
    qtbot.addWidget(plot)
    plot.resize(500, 360)
    plot.show()
    qtbot.waitExposed(plot)
    item = plot.plot_item
    hidden = [item.getAxis(side) for side in ("top", "right")]
    assert [axis.isVisible() for axis in hidden] == [False, False]
    assert hidden[0].maximumHeight() == 0 and hidden[1].maximumWidth() == 0
    labels = {id(axis.label) for axis in hidden}
    calls: list[str] = []
    set_html = type(hidden[0].label).setHtml

    def counting(text_item, html):
        if id(text_item) in labels:
            calls.append(html)
        set_html(text_item, html)

    monkeypatch.setattr(type(hidden[0].label), "setHtml", counting)
    for y_max in (9.5, 41.3, 0.012, 30.0, 4.2e6):
        item.setYRange(0, y_max)
        item.setXRange(0, y_max / 3)
        plot.settle()
    assert calls == [], calls


@pytest.mark.parametrize("dark", [False, True])
def test_an_axis_given_a_range_again_draws_the_specs_it_worked_out(qapp, dark, specs_made):
    """A range the axis showed before (a sequence length edited back) draws the specs worked
    out then: no ticks or labels worked out again, and the same image as pyqtgraph's axes.
    What else the specs come from — pens, tick font, size, the ticks given — works them out
    again."""
    plots = [_plot(pg.AxisItem, dark), _plot(FastAxis, dark)]
    for widget in plots:
        widget.show()
    qapp.processEvents()

    def same_images(step) -> None:
        images = [widget.grab().toImage() for widget in plots]
        assert images[0] == images[1], step

    fast = plots[1].getPlotItem().getAxis("left")
    for round_ in range(3):
        for y_max in (9.5, 41.3, 0.07):
            for widget in plots:
                widget.getPlotItem().setYRange(0, y_max, padding=0)
            specs_made.clear()
            same_images((round_, y_max))
            if round_ > 0:  # pyqtgraph's axis works its specs out; ours does not
                assert specs_made == ["left"] and fast.picture is not None, (round_, y_max)
    changes = [  # (what, the change, whether the specs depend on it)
        ("pen", lambda axis: axis.setPen(pg.mkPen("#d55e00")), True),
        ("text pen", lambda axis: axis.setTextPen(pg.mkPen("#0072b2")), False),
        ("font", lambda axis: axis.setStyle(tickFont=QFont("Sans Serif", 13)), True),
        ("ticks", lambda axis: axis.setTicks([[(0.0, "none"), (0.05, "some")]]), True),
        ("offset", lambda axis: axis.setStyle(tickTextOffset=9), True),
    ]
    for name, change, specs_change in changes:
        for widget in plots:
            change(widget.getPlotItem().getAxis("left"))
        specs_made.clear()
        same_images(name)
        assert specs_made.count("left") == 1 + specs_change, name  # pyqtgraph's (and ours)
    for widget in plots:
        widget.resize(460, 330)
    specs_made.clear()
    same_images("resized")
    assert specs_made.count("left") == 2
    for widget in plots:
        widget.close()
