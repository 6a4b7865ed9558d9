"""charts/png.py: a report's plot image written as PNG with numpy and zlib decodes to the pixels
Qt painted, as Qt's own writer's does (issue 17: a third of its CPU)."""

from __future__ import annotations

import struct

import pytest
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPointF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPen

from ftcost_gui.charts.png import png_bytes


def _chunks(data: bytes) -> dict[bytes, bytes]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, out = 8, {}
    while at < len(data):
        (n,) = struct.unpack(">I", data[at : at + 4])
        out[data[at + 4 : at + 8]] = data[at + 8 : at + 8 + n]
        at += 12 + n
    return out


def _qt_png(image: QImage) -> bytes:
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buf, "PNG", 85)
    buf.close()
    return bytes(data.data())


def _painted(background: QColor) -> QImage:
    """Antialiased dashed curves, text and a filled band at 2x on ``background``: a plot's kind
    of pixels, rows that differ and rows that repeat."""
    image = QImage(341, 197, QImage.Format.Format_ARGB32)  # odd sizes: row padding
    image.setDevicePixelRatio(2.0)
    image.fill(background)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.fillRect(20, 10, 60, 80, QColor(40, 160, 60, 70))
    for i, style in enumerate((Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine)):
        painter.setPen(QPen(QColor.fromHsv(90 * i, 200, 200), 1.4, style))
        painter.drawLine(QPointF(0, 5 + 20 * i), QPointF(170, 90 - 25 * i))
    painter.setPen(QColor("black"))
    painter.drawText(QPointF(90, 60), "Cost per run $1,234")
    painter.end()
    return image


@pytest.mark.parametrize("alpha", [255, 0, 128])
def test_the_png_decodes_to_the_painted_pixels_as_qts_does(qapp, alpha):
    """Opaque paper (the report's): written as RGB; transparent or half-transparent paper: as
    RGBA; either way every decoded pixel equals the painted one, and Qt's own PNG of the image
    decodes to the same; the pixels-per-metre chunk is Qt's."""
    image = _painted(QColor(255, 255, 255, alpha))
    ours, qts = png_bytes(image), _qt_png(image)
    decoded = QImage.fromData(ours, "PNG").convertToFormat(QImage.Format.Format_ARGB32)
    assert decoded == image.convertToFormat(QImage.Format.Format_ARGB32)
    assert decoded == QImage.fromData(qts, "PNG").convertToFormat(QImage.Format.Format_ARGB32)
    header = _chunks(ours)[b"IHDR"]
    width, height, depth, colour = struct.unpack(">IIBB", header[:10])
    assert (width, height, depth) == (341, 197, 8)
    assert colour == (2 if alpha == 255 else 6)  # RGB, RGBA
    assert _chunks(ours)[b"pHYs"] == _chunks(qts)[b"pHYs"]
