"""Many curves painted by one item, the ones an edit leaves alone from cached images (issue 17).

At 200 scenarios the 'All scenarios' cost plot draws 400 antialiased curves. As 400
``PlotCurveItem``s they cost ~0.3 s to make when the charts open (pyqtgraph connects each item to
its view) and ~0.6 ms each to stroke on every paint, though an edit changes one scenario's two.
A ``CurveSet`` is one graphics item that paints its ``Curve``s (plain objects: data, pen,
visibility) in their order, exactly as a ``PlotCurveItem`` each would paint itself (antialiased
``drawPath`` of pyqtgraph's path of the arrays). On screen, the runs of curves before and after
the live ones (the selected scenario's, which an edit changes) are painted into an image once and
that image is drawn until one of its curves, the view's range or size changes. Painted anywhere
but on screen (export, report, print: no widget) or on a hi-dpi device, every curve is stroked.

One curve drawn onto the (transparent) image and the image drawn onto the plot give the pixels
of the curve drawn onto the plot (Qt's source-over, the same 8-bit arithmetic). Where two cached
curves overlap on an antialiased edge, the image rounds their blend before the plot's background
comes in, so such pixels can differ by a few levels: measured at 3, 12 and 200 scenarios, light
and dark, before and after edits, ≤ 8 of 255 in a channel on ≤ 0.6 % of the plot's pixels.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRect, QRectF, Qt
from PySide6.QtGui import QImage, QPaintEngine, QPainter, QPainterPath, QPen, QTransform

_WHITE = pg.mkPen("w")  # a PlotCurveItem's pen until one is set (made once: ~0.1 ms each)


class Curve:
    """One curve of a ``CurveSet``: its data, pen and visibility (not a graphics item).

    It answers what a legend sample (``pg.ItemSample``: ``opts``, ``isVisible``, ``setVisible``)
    and the plot's readers (``getData``) ask of a ``PlotCurveItem``."""

    def __init__(self, owner: CurveSet):
        self.owner = owner
        self.opts: dict = {
            "pen": _WHITE,
            "name": None,
            "antialias": pg.getConfigOption("antialias"),
            "fillLevel": None,
            "symbol": None,
        }
        self.xData: np.ndarray | None = None
        self.yData: np.ndarray | None = None
        self.version = 0  # counts the changes: a cached image of it is stale
        self._path: QPainterPath | None = None
        self._visible = True

    def setData(self, x: np.ndarray, y: np.ndarray) -> None:
        self.xData, self.yData = x, y
        self._path = None
        self._changed()

    def getData(self) -> tuple[np.ndarray | None, np.ndarray | None]:
        return self.xData, self.yData

    def setPen(self, pen: QPen) -> None:
        self.opts["pen"] = pen
        self._changed()

    def isVisible(self) -> bool:
        return self._visible

    def setVisible(self, visible: bool) -> None:  # a click on its legend sample
        if visible != self._visible:
            self._visible = visible
            self._changed()

    def _changed(self) -> None:
        self.version += 1
        self.owner.update()

    def paint_into(self, p: QPainter, antialias: bool) -> None:
        """As ``PlotCurveItem.paint`` strokes it (no fill, no shadow pen, antialiased)."""
        x = self.xData
        if x is None or len(x) == 0:
            return
        path = self.path()
        p.setRenderHint(QPainter.RenderHint.Antialiasing, antialias)
        pen = self.opts["pen"]
        if pen.style() == Qt.PenStyle.NoPen:
            return
        p.setPen(pen)
        p.drawPath(path)

    def path(self) -> QPainterPath:
        """pyqtgraph's path of the data (as a PlotCurveItem makes it), made once per data."""
        if self._path is None:
            self._path = pg.arrayToQPath(self.xData, self.yData, connect="all", finiteCheck=True)
        return self._path


class _Run:
    """Consecutive cached curves, painted from one image."""

    __slots__ = ("image", "key", "members")

    def __init__(self, members: list[Curve]):
        self.members = members
        self.image: QImage | None = None
        self.key: tuple | None = None


class CurveSet(pg.GraphicsObject):
    """Paints ``curves`` in order (each later one over the earlier ones); the ``live`` ones are
    stroked on each paint, the runs between them from cached images."""

    def __init__(self) -> None:
        super().__init__()
        self.curves: list[Curve] = []
        self.live: tuple[Curve, ...] = ()
        self.renders = 0  # images made (tests count them)
        self.strokes = 0  # curves stroked (tests count them)
        self._blocks: list[_Run | Curve] = []
        self._rect = QRectF()

    def curve(self) -> Curve:
        """A new curve of this set (painted once listed by ``set_curves``)."""
        return Curve(self)

    def set_curves(self, curves: Sequence[Curve], live: Sequence[Curve] = ()) -> None:
        """Paint ``curves`` in this order; ``live`` ones stroked each paint, the rest cached."""
        curves, live = list(curves), tuple(c for c in live if c is not None)
        if curves == self.curves and live == self.live:
            return
        old = {tuple(map(id, b.members)): b for b in self._blocks if isinstance(b, _Run)}
        blocks: list[_Run | Curve] = []
        run: list[Curve] = []
        for c in curves:
            if c in live:
                if run:
                    blocks.append(old.get(tuple(map(id, run))) or _Run(run))
                    run = []
                blocks.append(c)
            else:
                run.append(c)
        if run:
            blocks.append(old.get(tuple(map(id, run))) or _Run(run))
        self.curves, self.live, self._blocks = curves, live, blocks
        self.update()

    def prepare(self) -> None:
        """Every curve's path made now, not at the first paint (the hidden plot, at idle)."""
        for c in self.curves:
            if c.xData is not None and len(c.xData):
                c.path()

    @property
    def runs(self) -> list[list[Curve]]:
        """The cached runs' curves, in painting order."""
        return [b.members for b in self._blocks if isinstance(b, _Run)]

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
    def _antialias(self, curve: Curve) -> bool:
        if self._exportOpts is not False:  # pyqtgraph's exporters
            return bool(self._exportOpts.get("antialias", True))
        return bool(curve.opts["antialias"])

    def _stroke(self, p: QPainter, curves: Sequence[Curve]) -> None:
        for c in curves:
            if c.isVisible():
                p.save()
                c.paint_into(p, self._antialias(c))
                p.restore()
                self.strokes += 1

    def paint(self, p: QPainter, opt, widget=None) -> None:
        engine = p.paintEngine()
        on_screen = (
            widget is not None
            and engine is not None
            and engine.type() == QPaintEngine.Type.Raster
            and p.device().devicePixelRatioF() == 1.0
        )
        if not on_screen:  # export, report: every curve as it would paint itself
            self._stroke(p, self.curves)
            return
        t = p.combinedTransform()
        area = t.mapRect(self.boundingRect()).toAlignedRect().intersected(widget.rect())
        if area.isEmpty():
            return
        view = (
            (t.m11(), t.m12(), t.m21(), t.m22(), t.dx(), t.dy()),
            (area.x(), area.y(), area.width(), area.height()),
            int(p.renderHints().value),
        )
        for block in self._blocks:
            if isinstance(block, Curve):
                self._stroke(p, (block,))
                continue
            key = (view, tuple((c, c.version) for c in block.members))
            if key != block.key or block.image is None:
                self._render(block, p, t, area)
                block.key = key
            p.save()
            p.resetTransform()
            p.drawImage(area.topLeft(), block.image)
            p.restore()

    def _render(self, block: _Run, p: QPainter, t: QTransform, area: QRect) -> None:
        image = QImage(area.size(), QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(0)
        q = QPainter(image)
        q.setRenderHints(p.renderHints())
        q.setTransform(t * QTransform.fromTranslate(-area.x(), -area.y()))
        self._stroke(q, block.members)
        q.end()
        block.image = image
        self.renders += 1
