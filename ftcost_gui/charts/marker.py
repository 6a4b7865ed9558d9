"""Scatter markers whose bounding rectangle is remembered (issue 17).

``pg.ScatterPlotItem.boundingRect`` works the pixel size out from the device transform every
time the scene asks (~0.15 ms a call), and the scene asks the cost plot's marker four times per
edit. The rectangle depends on the spots' data bounds, their largest size in pixels and the
pixel size: pyqtgraph resets its data-bounds cache (``bounds``) whenever any of those changes
(new spots, sizes or pens, the view's transform), so the rectangle is remembered until then.
"""

from __future__ import annotations

from pyqtgraph.graphicsItems.ScatterPlotItem import ScatterPlotItem
from PySide6.QtCore import QRectF


class Marker(ScatterPlotItem):
    """``ScatterPlotItem`` that works its bounding rectangle out once per change."""

    _rect: QRectF | None = None  # (a class default: pyqtgraph's __init__ sets ``bounds`` first)

    @property
    def bounds(self) -> list:
        """pyqtgraph's data-bounds cache; setting it anew (its reset) forgets the rectangle."""
        return self._bounds

    @bounds.setter
    def bounds(self, value: list) -> None:
        self._bounds = value
        self._rect = None

    def boundingRect(self) -> QRectF:
        if self._rect is None:
            self._rect = super().boundingRect()
        return QRectF(self._rect)
