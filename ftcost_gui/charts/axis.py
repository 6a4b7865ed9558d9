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
specs instead of working the ticks and labels out again (~1.3M instructions an axis), and what
was worked out from them for the screen (``_Plan``: which tick lines are pixel rows, with their
colours; asking each tick's pen on every paint cost ~2.3M instructions per edit of both plots).
"""

from __future__ import annotations

from types import MethodType
from typing import ClassVar

import pyqtgraph as pg
from PySide6.QtCore import QLineF, QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPaintEngine, QPainter, QPen, QPicture, QTransform

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


def _row_fill(pen: QPen, line: QLineF) -> tuple[float, float, float, bool, QColor] | None:
    """(x1, y, x2, square cap, colour) of ``line`` drawn with ``pen`` when it is a horizontal
    line that ``drawLine`` paints as one row of pixels (see the module's docstring; a painter
    at full opacity, source-over, is checked when drawing); None where it is not."""
    if line.y1() != line.y2() or line.x1() == line.x2():
        return None
    if (
        not pen.isCosmetic()
        or pen.widthF() > 1.0
        or pen.style() != _SOLID_LINE
        or pen.brush().style() != _SOLID
        or pen.capStyle() not in (_SQUARE, _FLAT)
    ):
        return None
    return line.x1(), line.y1(), line.x2(), pen.capStyle() == _SQUARE, pen.color()


class _Plan:
    """What the axis draws for a set of specs, in painter-free terms worked out once: each tick
    line with its pen and, where it is a pixel row, the fill that paints it; each label with
    its flags as an int. The specs of a range come back edit after edit (kept), and so does
    this: no pen or line is asked again (~20 Qt calls a tick)."""

    __slots__ = ("axis", "texts", "ticks")

    def __init__(self, axis_spec: tuple, tick_specs: list, text_specs: list) -> None:
        self.axis = axis_spec
        self.ticks = []
        for pen, p1, p2 in tick_specs:
            line = QLineF(QPointF(p1), QPointF(p2))
            self.ticks.append((line, pen, _row_fill(pen, line)))
        self.texts = [(rect, int(flags), text) for rect, flags, text in text_specs]


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
        self._plan: _Plan | None = None  # what those specs draw on screen
        self._unrecorded: QPicture | None = None  # a picture made while measuring, empty
        # [(inputs, pens, specs, their plan, text size)], the latest first (see the module's
        # docstring)
        self._kept: list[
            tuple[tuple, tuple[QPen, QPen], tuple | None, _Plan | None, float | None]
        ] = []
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
                specs, self._plan = self._specs_for(painter, font)
            finally:
                painter.end()
            # Not None: the specs are current (pyqtgraph sets it to None when they are not).
            self.picture = self._unrecorded = picture
            self._specs = None if specs is None else (font, *specs)
        if self._specs is None or self._plan is None:
            return
        p.save()
        try:
            p.setFont(self._specs[0])  # the font the picture's painter measured the labels in
            self._draw(p, self._plan)
        finally:
            p.restore()

    def _specs_for(self, painter: QPainter, font: QFont) -> tuple[tuple | None, _Plan | None]:
        """``generateDrawSpecs``'s result and its plan, remembered for the inputs it is worked
        out from."""
        inputs = self._spec_inputs(font)
        pens = (self.pen(), self.tickPen())
        for i, (known, known_pens, specs, plan, text_size) in enumerate(self._kept):
            if known == inputs and known_pens == pens:
                self._kept.insert(0, self._kept.pop(i))
                if text_size is not None:  # its one side effect: the axis sized by its labels
                    self._updateMaxTextSize(text_size)
                return specs, plan
        self._text_size = None
        specs = self.generateDrawSpecs(_Measuring(painter))
        plan = None if specs is None else _Plan(*specs)
        self._kept.insert(0, (inputs, pens, specs, plan, self._text_size))
        del self._kept[SPECS_KEPT:]
        return specs, plan

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
        self._draw(p, _Plan(axisSpec, tickSpecs, textSpecs))

    def _draw(self, p: QPainter, plan: _Plan) -> None:
        """pyqtgraph's drawPicture on a 1:1 raster painter, with the translucent horizontal lines
        filled as pixel rows (a run of them in one save/restore: fills change no painter
        state but the transform they reset)."""
        p.setRenderHint(_AA, False)
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        pen, p1, p2 = plan.axis
        p.setPen(pen)
        p.drawLine(p1, p2)
        rows = p.opacity() == 1.0 and p.compositionMode() == _SOURCE_OVER
        t = p.transform()  # a translation (_one_to_one_raster)
        dx, dy = t.dx(), t.dy()
        in_device = False  # the transform reset for fills
        for line, pen, fill in plan.ticks:
            if rows and fill is not None:
                x1, y, x2, square, colour = fill
                rect = hline_pixels(x1 + dx, y + dy, x2 + dx, square)
                if rect.width() > 0:
                    if not in_device:
                        p.save()
                        p.resetTransform()
                        in_device = True
                    p.fillRect(rect, colour)
                continue
            if in_device:
                p.restore()
                in_device = False
            p.setPen(pen)
            p.drawLine(line)
        if in_device:
            p.restore()
        if self.style["tickFont"] is not None:
            p.setFont(self.style["tickFont"])
        p.setPen(self.textPen())
        p.setClipRect(self.boundingRect().toAlignedRect())
        for rect, flags, text in plan.texts:
            p.drawText(rect, flags, text)
