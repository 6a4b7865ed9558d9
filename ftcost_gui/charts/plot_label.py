"""A text label in a plot that Qt never asks to paint (issue 17).

``pg.TextItem`` paints nothing itself when it has no border and no fill: its text is a child
``QGraphicsTextItem``. Qt still calls its Python ``paint`` each time the plot repaints over it
(~75k instructions a call, about six per edit), and pyqtgraph uses that first call to follow
the scene (it connects ``updateTransform`` to the scene's ``sigPrepareForPaint``). A
``PlotLabel`` tells Qt it has no contents of its own (``ItemHasNoContents``: its children are
still painted) and follows the scene when it is put in one, as that first paint would.
"""

from __future__ import annotations

from contextlib import suppress

import pyqtgraph as pg
from PySide6.QtWidgets import QGraphicsItem

_NO_CONTENTS = QGraphicsItem.GraphicsItemFlag.ItemHasNoContents


class PlotLabel(pg.TextItem):
    """``pg.TextItem`` without border or fill, never painted itself (its text is)."""

    def __init__(self, text: str = "", color: object = (200, 200, 200), anchor=(0, 0)) -> None:
        super().__init__(text, color=color, anchor=anchor)
        self.setFlag(_NO_CONTENTS)

    def changeParent(self) -> None:
        """pyqtgraph's hook for a new parent or scene (from its ``itemChange``; extended here,
        not ``itemChange`` itself, which Qt calls for every move): then, what ``TextItem.paint``
        does when it first paints in a scene: the label follows that scene's paints (and
        leaves the one it was in)."""
        super().changeParent()
        scene, last = self.scene(), self._lastScene
        if scene is last:
            return
        if last is not None:
            with suppress(RuntimeError):  # the scene is gone already (the window closing)
                last.sigPrepareForPaint.disconnect(self.updateTransform)
        self._lastScene = scene
        if scene is not None:
            scene.sigPrepareForPaint.connect(self.updateTransform)
        self.updateTransform()
