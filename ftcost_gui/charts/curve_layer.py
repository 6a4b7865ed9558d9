"""Curves an edit leaves alone, painted once into a cached image (issue 17: 'All scenarios').

At 200 scenarios the cost plot strokes 400 antialiased curves (~0.6 ms each) on every paint,
though an edit changes one scenario's two. ``CurveLayers.arrange`` groups the curves that are
cached into runs of consecutive siblings (the order they are painted in) and puts one
``CurveLayer`` in each run's place: on screen the layer paints its curves into an image once and
draws that image until one of them, the view's range or size changes. The curves themselves are
kept (legend, hover, auto-range, tests) and paint nothing themselves while a layer holds them.
Painted anywhere but on screen (export, report, print: no widget), a layer paints its curves as
they would paint themselves.

One curve drawn onto the (transparent) image and the image drawn onto the plot give the pixels
of the curve drawn onto the plot (Qt's source-over, the same 8-bit arithmetic). Where two cached
curves overlap on an antialiased edge, the image rounds their blend before the plot's background
comes in, so such pixels can differ by a few levels: measured at 3, 12 and 200 scenarios, light
and dark, before and after edits, ≤ 8 of 255 in a channel on ≤ 0.6 % of the plot's pixels.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence

import pyqtgraph as pg
from PySide6.QtCore import QRect, QRectF
from PySide6.QtGui import QImage, QPaintEngine, QPainter, QTransform
from PySide6.QtWidgets import QGraphicsItem


class LayeredCurve(pg.PlotCurveItem):
    """A curve that a ``CurveLayer`` may paint in its stead."""

    layered = False
    layer: CurveLayer | None = None  # the one that paints it

    def paint(self, p, opt, widget=None) -> None:
        if not self.layered:
            super().paint(p, opt, widget)

    def itemChange(self, change, value):
        visible = change == QGraphicsItem.GraphicsItemChange.ItemVisibleHasChanged
        if visible and self.layer is not None:  # shown or hidden (a click on its legend entry)
            self.layer.invalidate()
        return super().itemChange(change, value)

    def paint_into(self, p: QPainter, opt, widget) -> None:
        super().paint(p, opt, widget)


class CurveLayer(pg.GraphicsObject):
    """Paints its curves (siblings, in their order) from an image made when they change."""

    def __init__(self) -> None:
        super().__init__()
        self.members: list[LayeredCurve] = []
        self.renders = 0  # images made (tests count them)
        self._image: QImage | None = None
        self._key: tuple | None = None
        self._rect = QRectF()

    def set_members(self, members: list[LayeredCurve]) -> None:
        self.members = members
        for m in members:
            m.layer = self
        self.invalidate()

    def invalidate(self) -> None:
        self._key = None
        self.update()

    # --- geometry: the view box's area (what of the curves can be seen) ----------------------
    def viewTransformChanged(self) -> None:
        self.prepareGeometryChange()
        self._rect = QRectF()

    def boundingRect(self) -> QRectF:
        if self._rect.isNull():
            vb = self.getViewBox()
            if vb is not None:
                self._rect = self.mapRectFromItem(vb, vb.boundingRect())
        return self._rect

    # --- painting -----------------------------------------------------------------------------
    def _paint_members(self, p: QPainter, members: Iterable[LayeredCurve], opt, widget) -> None:
        base = p.transform()
        for m in members:
            to_layer, _ok = m.itemTransform(self)
            p.save()
            p.setTransform(to_layer * base)
            m.paint_into(p, opt, widget)
            p.restore()

    def paint(self, p: QPainter, opt, widget=None) -> None:
        engine = p.paintEngine()
        on_screen = (
            widget is not None
            and engine is not None
            and engine.type() == QPaintEngine.Type.Raster
            and p.device().devicePixelRatioF() == 1.0
        )
        if not on_screen:  # export, report: as the curves would paint themselves
            self._paint_members(p, [m for m in self.members if m.isVisible()], opt, widget)
            return
        t = p.combinedTransform()
        area = t.mapRect(self.boundingRect()).toAlignedRect().intersected(widget.rect())
        if area.isEmpty():
            return
        key = (
            (t.m11(), t.m12(), t.m21(), t.m22(), t.dx(), t.dy()),
            (area.x(), area.y(), area.width(), area.height()),
            int(p.renderHints().value),
        )
        if key != self._key or self._image is None:
            self._render(p, t, area, [m for m in self.members if m.isVisible()], opt, widget)
            self._key = key
        p.save()
        p.resetTransform()
        p.drawImage(area.topLeft(), self._image)
        p.restore()

    def _render(self, p: QPainter, t: QTransform, area: QRect, members, opt, widget) -> None:
        image = QImage(area.size(), QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(0)
        q = QPainter(image)
        q.setRenderHints(p.renderHints())
        q.setTransform(t * QTransform.fromTranslate(-area.x(), -area.y()))
        self._paint_members(q, members, opt, widget)
        q.end()
        self._image = image
        self.renders += 1


class CurveLayers:
    """The layers of one view box: ``arrange`` after every change of its curves."""

    def __init__(self, view_box: pg.ViewBox):
        self.view_box = view_box
        self.layers: list[CurveLayer] = []
        self._cached: list[LayeredCurve] = []

    def arrange(
        self,
        cached: Sequence[LayeredCurve],
        changed: Iterable[QGraphicsItem],
    ) -> None:
        """Cache ``cached`` (curves of this view box); of these, ``changed`` were changed since."""
        if len(cached) == len(self._cached) and all(map(operator.is_, cached, self._cached)):
            self._invalidate(changed)  # the same curves: the same runs (items added come after)
            return
        want = set(cached)
        runs: list[list[LayeredCurve]] = []
        run: list[LayeredCurve] = []
        for item in self.view_box.childGroup.childItems():  # in painting order
            if isinstance(item, CurveLayer):
                continue
            if item in want:
                run.append(item)
            elif run:
                runs.append(run)
                run = []
        if run:
            runs.append(run)
        if [layer.members for layer in self.layers] == runs:
            self._invalidate(changed)
            return
        for item in self._cached:
            item.layered, item.layer = False, None
        for item in cached:
            item.layered = True
        self._cached = list(cached)
        for layer in self.layers:  # stackBefore moves an item back only: from the end
            self.view_box.removeItem(layer)
        del self.layers[len(runs) :]
        while len(self.layers) < len(runs):
            self.layers.append(CurveLayer())
        for layer, members in zip(self.layers, runs, strict=True):
            self.view_box.addItem(layer, ignoreBounds=True)
            layer.stackBefore(members[0])
            layer.set_members(members)

    def _invalidate(self, changed: Iterable[QGraphicsItem]) -> None:
        touched = set(changed)
        for layer in self.layers:
            if not touched.isdisjoint(layer.members):
                layer.invalidate()
