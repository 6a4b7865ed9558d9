"""PNG via pyqtgraph's ImageExporter; SVG via QSvgGenerator.

pyqtgraph 0.14's SVGExporter fails with Qt >= 6.11 (it cannot parse the 'Z' close-path tokens Qt
now emits; pyqtgraph#3495, fix in PR #3458 not released), so SVG renders the scene through
QSvgGenerator instead (ecosystem-notes §5.1).
"""

from __future__ import annotations

import os
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QRectF, QSize
from PySide6.QtGui import QImage, QPainter

from .png import png_bytes

# pyqtgraph's exporters (all of them load together, its parameter tree with them) are imported
# by the window's PNG export: a report renders its PNGs with ``render_png`` alone (issue 17).


def export_png(
    widget: pg.GraphicsView, item: Any, path: str | os.PathLike[str], width: int | None = None
) -> None:
    """``item``: the graphics item to export (a PlotItem or a layout); width defaults to on-screen.

    Upscaling with ``width`` enlarges fonts and data but not legends, so the default keeps the
    on-screen size.
    """
    from pyqtgraph.exporters import ImageExporter

    exporter = ImageExporter(item)
    if width is not None:
        exporter.parameters()["width"] = width
    exporter.export(str(path))


def export_svg(
    widget: pg.GraphicsView, item: Any, path: str | os.PathLike[str], title: str = ""
) -> None:
    """Render ``item``'s part of ``widget``'s scene into an SVG file."""
    from PySide6.QtSvg import QSvgGenerator

    rect = item.sceneBoundingRect()
    gen = QSvgGenerator()
    gen.setFileName(str(path))
    gen.setResolution(widget.logicalDpiX())  # must match the screen, else data and axes misalign
    gen.setSize(QSize(int(rect.width()), int(rect.height())))
    gen.setViewBox(QRectF(0, 0, rect.width(), rect.height()))
    if title:
        gen.setTitle(title)
    painter = QPainter(gen)
    try:
        widget.scene().render(painter, QRectF(0, 0, rect.width(), rect.height()), rect)
    finally:
        painter.end()


def render_png(widget: pg.GraphicsView, item: Any, scale: float = 2.0) -> bytes:
    """PNG bytes of ``item``'s part of the scene, drawn at ``scale`` × its on-screen size.

    Rendering the scene scaled (rather than exporting a larger image) keeps text, legends and
    data in proportion and sharp, as for print.
    """
    rect = item.sceneBoundingRect()
    w, h = max(1, round(rect.width() * scale)), max(1, round(rect.height() * scale))
    image = QImage(w, h, QImage.Format.Format_ARGB32)
    image.setDevicePixelRatio(scale)  # Qt scales the painting; items keep their logical sizes
    image.fill(widget.backgroundBrush().color())  # the paper the plot is drawn on
    painter = QPainter(image)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        widget.scene().render(painter, QRectF(0, 0, rect.width(), rect.height()), rect)
    finally:
        painter.end()
    return png_bytes(image)  # not Qt's writer: a third of its CPU (charts/png.py)
