"""An axis that draws what pyqtgraph's ``AxisItem`` draws, faster on screen.

pyqtgraph records an axis into a ``QPicture`` once per range change and replays it. Replaying
(or drawing) its grid lines is most of the cost of an edit's axis painting: a cosmetic 1-px line
in a translucent colour without antialiasing is blended pixel by pixel in Qt's raster engine
(~150 µs for a 470-px grid line, each plot has about seven). Such a horizontal line covers one
row of whole pixels, each blended once with the pen's colour: the same as filling that
one-pixel-high rectangle with the colour, which Qt blends a span at a time. ``hline_pixels``
gives that rectangle by QCosmeticStroker's own arithmetic (qcosmeticstroker.cpp, drawLine: 26.6
fixed point, caps); tests/gui/test_axis.py renders both ways over thousands of positions and
compares the images.

On a raster device at 1:1 (the screen, PNG export) the axis draws its specs directly (no picture
to replay: the specs are kept instead); on any other device (SVG export, a QPicture) or scaled
(the report's PNGs) it draws as pyqtgraph does.

The specs of the last few ranges are remembered with everything ``generateDrawSpecs`` reads
(range, geometry, device transform, the linked view's rectangle, style, ticks, pens, font): an
edit that brings a range back (a sequence length edited back and forth) draws the remembered
specs instead of working the ticks and labels out again (~1.3M instructions an axis).
"""

from __future__ import annotations

from types import MethodType
from typing import ClassVar

import pyqtgraph as pg
from PySide6.QtCore import QLineF, QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QFont, QPaintEngine, QPainter, QPen, QPicture, QTransform

_RASTER = QPaintEngine.Type.Raster
_SOLID_LINE = Qt.PenStyle.SolidLine
_SOLID = Qt.BrushStyle.SolidPattern
_SQUARE = Qt.PenCapStyle.SquareCap
_FLAT = Qt.PenCapStyle.FlatCap
_AA = QPainter.RenderHint.Antialiasing
_SOURCE_OVER = QPainter.CompositionMode.CompositionMode_SourceOver
_TRANSLATE = QTransform.TransformationType.TxTranslate.value
SPECS_KEPT = 6  # ranges whose draw specs an axis remembers


def _f26(v: float) -> int:
    """qcosmeticstroker.cpp ``toF26Dot6``: (int)(x * 64.)."""
    return int(v * 64.0)


def hline_pixels(x1: float, y: float, x2: float, square_cap: bool) -> QRect:
    """The device pixels a cosmetic 1-px, non-antialiased horizontal line from (x1, y) to
    (x2, y) covers (QCosmeticStroker::drawLine, horizontal case, no legacy rounding)."""
    a, b = _f26(x1), _f26(x2)
    if a > b:
        a, b = b, a
    if square_cap:  # capAdjust: half a pixel (32 in 26.6) at each end
        a -= 32
        b += 32
    xs, xe = (a + 32) >> 6, (b + 32) >> 6
    return QRect(xs, _f26(y) >> 6, xe - xs, 1)


def _fill_hline(p: QPainter, pen: QPen, line: QLineF) -> bool:
    """Draw ``line`` with ``pen`` as its pixel row when that is exactly what ``drawLine`` would
    paint (see the module's docstring); False where it is not (the caller draws the line)."""
    if line.y1() != line.y2() or line.x1() == line.x2():
        return False
    if p.opacity() != 1.0 or p.compositionMode() != _SOURCE_OVER:
        return False
    if (
        not pen.isCosmetic()
        or pen.widthF() > 1.0
        or pen.style() != _SOLID_LINE
        or pen.brush().style() != _SOLID
        or pen.capStyle() not in (_SQUARE, _FLAT)
    ):
        return False
    t = p.transform()  # a translation (_one_to_one_raster)
    dx, dy = t.dx(), t.dy()
    rect = hline_pixels(line.x1() + dx, line.y1() + dy, line.x2() + dx, pen.capStyle() == _SQUARE)
    if rect.width() > 0:
        p.save()
        p.resetTransform()
        p.fillRect(rect, pen.color())
        p.restore()
    return True


def _one_to_one_raster(p: QPainter) -> bool:
    """A raster device painted pixel for pixel: no scale in the painter or the device."""
    engine, device = p.paintEngine(), p.device()
    return (
        engine is not None
        and engine.type() == _RASTER
        and device is not None
        and device.devicePixelRatio() == 1.0
        and p.transform().type().value <= _TRANSLATE
    )


class _Measuring:
    """The QPicture painter ``generateDrawSpecs`` measures tick labels with (its only uses:
    ``setFont`` and ``boundingRect``), remembering each label's rectangle: the same labels
    come back edit after edit ("10", "20", …), and each measure lays the text out."""

    _known: ClassVar[dict[tuple, QRectF]] = {}

    def __init__(self, painter: QPainter):
        self._painter = painter

    def setFont(self, font) -> None:
        self._painter.setFont(font)

    def boundingRect(self, rect: QRectF, flags, text: str) -> QRectF:
        key = (self._painter.font().key(), rect.getRect(), int(flags), text)
        known = self._known.get(key)
        if known is None:
            if len(self._known) > 4096:
                self._known.clear()
            known = self._known[key] = self._painter.boundingRect(rect, flags, text)
        return QRectF(known)  # pyqtgraph changes the rectangles it is given


def _update_label_once(axis: pg.AxisItem) -> None:
    """``AxisItem._updateLabel``, laying the title out only when it reads differently:
    pyqtgraph sets the title's HTML again on every range change (each edit), hidden axes too."""
    html = axis.labelString()
    if html != getattr(axis, "_label_html", None):  # (pyqtgraph's __init__ sets it first)
        axis.label.setHtml(html)
    axis._label_html = html
    axis._adjustSize()
    axis.picture = None
    axis.update()


def title_once(axis: pg.AxisItem) -> None:
    """Give an axis pyqtgraph made (a plot's hidden top or right one: made, placed and hidden
    by ``PlotItem`` as ever) the title check of ``FastAxis``."""
    axis._updateLabel = MethodType(_update_label_once, axis)


class FastAxis(pg.AxisItem):
    """``pg.AxisItem`` that paints its lines and labels directly on raster devices."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._specs: tuple | None = None  # (font, axis, ticks, texts) of the current picture
        self._unrecorded: QPicture | None = None  # a picture made while measuring, empty
        # [(inputs, pens, specs, text size)], the latest first (see the module's docstring)
        self._kept: list[tuple[tuple, tuple[QPen, QPen], tuple | None, float | None]] = []
        self._text_size: float | None = None  # what generateDrawSpecs last sized the axis by

    def paint(self, p, opt, widget) -> None:
        if not _one_to_one_raster(p):
            # Another device, or a scaled painter (render_png): pyqtgraph's replayed picture
            # (text drawn directly at a scale is not placed quite as the picture places it),
            # recorded from the specs measured on screen, as pyqtgraph's would have been.
            if self.picture is not None and self.picture is self._unrecorded:
                self.picture = self._record(*self._specs[1:]) if self._specs else None
            super().paint(p, opt, widget)
            return
        if self.picture is None or self._specs is None:
            # pyqtgraph measures the labels with a painter on a QPicture: the same metrics here.
            picture = QPicture()
            painter = QPainter(picture)
            try:
                if self.style["tickFont"]:
                    painter.setFont(self.style["tickFont"])
                font = painter.font()
                specs = self._specs_for(painter, font)
            finally:
                painter.end()
            # Not None: the specs are current (pyqtgraph sets it to None when they are not).
            self.picture = self._unrecorded = picture
            self._specs = None if specs is None else (font, *specs)
        if self._specs is None:
            return
        font, axis_spec, tick_specs, text_specs = self._specs
        p.save()
        try:
            p.setFont(font)  # the font the picture's painter measured the labels in
            self.drawPicture(p, axis_spec, tick_specs, text_specs)
        finally:
            p.restore()

    def _specs_for(self, painter: QPainter, font: QFont) -> tuple | None:
        """``generateDrawSpecs``'s result, remembered for the inputs it is worked out from."""
        inputs = self._spec_inputs(font)
        pens = (self.pen(), self.tickPen())
        for i, (known, known_pens, specs, text_size) in enumerate(self._kept):
            if known == inputs and known_pens == pens:
                self._kept.insert(0, self._kept.pop(i))
                if text_size is not None:  # its one side effect: the axis sized by its labels
                    self._updateMaxTextSize(text_size)
                return specs
        self._text_size = None
        specs = self.generateDrawSpecs(_Measuring(painter))
        self._kept.insert(0, (inputs, pens, specs, self._text_size))
        del self._kept[SPECS_KEPT:]
        return specs

    def _spec_inputs(self, font: QFont) -> tuple:
        """What ``generateDrawSpecs`` (with ``tickValues``, ``tickStrings``, ``boundingRect``
        and ``mapToDevice``) reads, pens aside (compared as pens: they do not hash)."""
        view = self.linkedView()
        view_rect = None if view is None else view.mapRectToItem(self, view.boundingRect())
        t = self.deviceTransform_()  # (mapToDevice's)
        return (
            tuple(self.range),
            self.mapRectFromParent(self.geometry()).getRect(),
            None if t is None else (t.m11(), t.m12(), t.m21(), t.m22(), t.dx(), t.dy()),
            None if view_rect is None else view_rect.getRect(),
            self.grid,
            font.key(),
            repr(self.style),
            repr(self._tickLevels),
            repr(self._tickSpacing),
            self._tickDensity,
            tuple(self.logMode) if isinstance(self.logMode, list) else self.logMode,
            self.scale,
            self.autoSIPrefixScale,
        )

    def _updateMaxTextSize(self, x: float) -> None:
        self._text_size = x
        super()._updateMaxTextSize(x)

    def _record(self, axis_spec, tick_specs, text_specs) -> QPicture:
        """The picture pyqtgraph's ``paint`` records from these specs."""
        picture = QPicture()
        painter = QPainter(picture)
        try:
            if self.style["tickFont"]:
                painter.setFont(self.style["tickFont"])
            self.drawPicture(painter, axis_spec, tick_specs, text_specs)
        finally:
            painter.end()
        return picture

    _updateLabel = _update_label_once

    def drawPicture(self, p, axisSpec, tickSpecs, textSpecs) -> None:
        if not _one_to_one_raster(p):
            super().drawPicture(p, axisSpec, tickSpecs, textSpecs)
            return
        # pyqtgraph's drawPicture, with the translucent horizontal lines filled as pixel rows.
        p.setRenderHint(_AA, False)
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        pen, p1, p2 = axisSpec
        p.setPen(pen)
        p.drawLine(p1, p2)
        for pen, p1, p2 in tickSpecs:
            line = QLineF(QPointF(p1), QPointF(p2))
            if not _fill_hline(p, pen, line):
                p.setPen(pen)
                p.drawLine(line)
        if self.style["tickFont"] is not None:
            p.setFont(self.style["tickFont"])
        p.setPen(self.textPen())
        p.setClipRect(self.boundingRect().toAlignedRect())
        for rect, flags, text in textSpecs:
            p.drawText(rect, int(flags), text)
