"""The memory plot's stacked parts painted by one graphics item (issue 17).

As one ``pg.BarGraphItem`` per memory part (14), an edit that changes the bars paid pyqtgraph's
scene work per part given new data (its geometry change, the bounding rectangle asked again,
its view told of new bounds) and the scene's work per part painted: ~4.1M instructions of a
sequence-length edit's set_bars, ~8.3M of a CPU-offload toggle's (callgrind, 1440×900).
Here each part is a ``BarPart``: a ``pg.BarGraphItem`` that holds its data, pen, brush and
visibility as before (the legend's sample reads them; a click on the sample hides the part) but
is not in the scene; a ``StackedBars`` item in the scene paints the parts in their order, each by
pyqtgraph's own ``BarGraphItem.paint`` (pen, brush, ``drawRects``): the same painter calls, in
the same order and transform, as the parts painted one by one.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import QRectF


class BarPart(pg.BarGraphItem):
    """One memory part's bars, painted by the ``StackedBars`` that owns it."""

    def __init__(self, owner: StackedBars, **opts):
        self.owner = owner  # (before BarGraphItem.__init__: it sets the options)
        super().__init__(**opts)

    def setOpts(self, **opts) -> None:
        super().setOpts(**opts)
        self.owner.changed()

    def setVisible(self, visible: bool) -> None:  # a click on its legend sample
        if visible != self.isVisible():
            super().setVisible(visible)
            self.owner.update()


class StackedBars(pg.GraphicsObject):
    """Paints its ``BarPart``s in order; its bounds are theirs (as each would report them in
    the scene: data bounds plus half its pen in pixels), remembered until a part or the view's
    transform changes."""

    def __init__(self):
        super().__init__()
        self.parts: list[BarPart] = []
        self._bounds: QRectF | None = None
        self._changing = False  # a geometry change announced, the new bounds not yet asked
        self.measured = 0  # bounds worked out (tests count them)

    def add(self, **opts) -> BarPart:
        part = BarPart(self, **opts)
        self.parts.append(part)
        self.changed()
        return part

    def changed(self) -> None:
        """A part's data or pen changed: the old area and the new one are repainted (one
        geometry change per batch of part changes)."""
        if not self._changing:
            self._changing = True
            self.prepareGeometryChange()  # (asks the remembered, old bounds)
            self.informViewBoundsChanged()
        self._bounds = None
        self.update()

    def viewTransformChanged(self) -> None:
        self._bounds = None  # a range change or resize: another pixel size
        self.prepareGeometryChange()
        super().viewTransformChanged()

    def boundingRect(self) -> QRectF:
        if self._bounds is None:
            self._bounds = self._measure()
            self._changing = False
        return QRectF(self._bounds)

    def _measure(self) -> QRectF:
        """``BarGraphItem.boundingRect`` of each part, with this item's pixel size, united."""
        self.measured += 1
        px, py = self.pixelVectors()
        px_len = 0.0 if px is None else px.length()
        py_len = 0.0 if py is None else py.length()
        rect = QRectF()
        for part in self.parts:
            (xmn, xmx), (ymn, ymx) = part.dataBounds(ax=0), part.dataBounds(ax=1)
            if xmn is None or xmx is None or ymn is None or ymx is None:
                continue
            pad = part.pixelPadding()
            dx, dy = px_len * pad, py_len * pad
            rect |= QRectF(xmn - dx, ymn - dy, 2 * dx + xmx - xmn, 2 * dy + ymx - ymn)
        return rect

    def dataBounds(self, ax: int, frac: float = 1.0, orthoRange: Sequence | None = None):
        """The parts' data bounds together (the view's auto-range asked each part)."""
        lows, highs = [], []
        for part in self.parts:
            lo, hi = part.dataBounds(ax, frac, orthoRange)
            if lo is not None and hi is not None:
                lows.append(lo)
                highs.append(hi)
        return (min(lows), max(highs)) if lows else (None, None)

    def paint(self, p, *args) -> None:
        for part in self.parts:
            if part.isVisible():
                pg.BarGraphItem.paint(part, p, *args)
