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

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF


class BarPart(pg.BarGraphItem):
    """One memory part's bars, painted by the ``StackedBars`` that owns it."""

    def __init__(self, owner: StackedBars, **opts):
        self.owner = owner  # (before BarGraphItem.__init__: it sets the options)
        self.drawn: tuple | None = None  # (bars, heights, bases) last stacked
        super().__init__(**opts)

    def setOpts(self, **opts) -> None:
        super().setOpts(**opts)
        self.drawn = None  # (data not from ``stack``)
        self.owner.changed()

    def take(self, rects: np.ndarray, bounds: tuple, **opts) -> None:
        """``setOpts(**opts)`` for new data (x, height, y0, width) whose rectangles (rows of x,
        y, width, height) and data bounds ``StackedBars.stack`` worked out for all parts at
        once, as ``BarGraphItem._prepareData`` works them out (the same float operations)."""
        self.opts.update(opts)
        self.picture = None
        self._shape = None
        self._dataBounds = bounds
        self._rectarray.resize(len(rects))
        self._rectarray.ndarray()[:] = rects
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

    def stack(self, x: np.ndarray, heights: Sequence[np.ndarray], width: float) -> np.ndarray:
        """Stack the parts' bars (``heights``: a part's height at each ``x``, in the parts'
        order), each part on the ones before it; the totals. A part whose bars are the ones it
        has is not given them again. The rectangles are ``BarGraphItem._prepareData``'s, worked
        out for all parts in one pass: each part given its data by ``setOpts`` cost ~0.2M
        instructions of numpy and option handling (callgrind: 2.1M of a sequence-length
        edit's bars, 3.2M of a CPU-offload toggle's)."""
        h = np.array(heights, dtype=float).reshape(len(self.parts), len(x))
        tops = np.cumsum(h, axis=0)  # the running sums ``base = base + h`` part by part
        base = np.zeros_like(h)
        base[1:] = tops[:-1]
        # _getNormalizedCoords: x0 = x - width/2., x1 = x0 + width, ordered; y0 .. y0 + height
        left = x - width / 2.0
        right = left + width
        x0, x1 = np.minimum(left, right), np.maximum(left, right)
        y0, y1 = np.minimum(base, base + h), np.maximum(base, base + h)
        if len(x):
            x_bounds = (np.min(x0), np.max(x1))
            y_lows, y_highs = np.min(y0, axis=1), np.max(y1, axis=1)
        rects = np.empty((len(x), 4))
        rects[:, 0], rects[:, 2] = x0, x1 - x0
        for i, part in enumerate(self.parts):
            drawn = (len(x), tuple(h[i]), tuple(base[i]))
            if part.drawn == drawn:
                continue
            part.drawn = drawn
            rects[:, 1], rects[:, 3] = y0[i], y1[i] - y0[i]
            bounds = (x_bounds, (y_lows[i], y_highs[i])) if len(x) else ((None, None), (None, None))
            part.take(rects, bounds, x=x, height=h[i].copy(), y0=base[i].copy(), width=width)
        return tops[-1] if len(self.parts) else np.zeros(len(x))

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
