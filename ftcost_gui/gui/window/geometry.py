"""The window's first size: the preferred size where the screen has room, else the screen's.

A saved geometry is restored only where it still fits the screen it lands on (a laptop at
125–150 % scaling offers about 1024×700; a window saved on a desktop monitor would open larger
than that screen).
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QRect, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QStyle, QWidget

PREFERRED = QSize(1440, 900)


def available_geometry(window: QWidget) -> QRect:
    """The room on the window's screen (the primary one before it is shown), panels excluded."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry()


def frame_allowance(window: QWidget) -> QSize:
    """A guess at the title bar and borders a window manager adds (unknown before showing)."""
    title = window.style().pixelMetric(QStyle.PixelMetric.PM_TitleBarHeight)
    border = 2 * window.style().pixelMetric(QStyle.PixelMetric.PM_DefaultFrameWidth)
    return QSize(border, title + border)


def fitted_size(available: QRect, frame: QSize, preferred: QSize = PREFERRED) -> QSize:
    """The preferred client size, shrunk to what the available area holds with its frame."""
    return QSize(
        min(preferred.width(), available.width() - frame.width()),
        min(preferred.height(), available.height() - frame.height()),
    )


def fits(geometry: QRect, available: QRect, frame: QSize) -> bool:
    """The window, with its frame, is no larger than the available area and lies on it (Qt
    moves a restored window that is off the screen back onto it, but keeps its size)."""
    return (
        geometry.width() + frame.width() <= available.width()
        and geometry.height() + frame.height() <= available.height()
        and available.intersects(geometry)
    )


def place_window(window: QWidget, saved: QByteArray | None) -> bool:
    """Restore ``saved`` where it fits the screen, else size the window to the screen and
    centre it. True when the saved geometry was kept."""
    available = available_geometry(window)
    frame = frame_allowance(window)
    restored = saved is not None and not saved.isEmpty() and window.restoreGeometry(saved)
    if restored and (window.isMaximized() or fits(window.geometry(), available, frame)):
        return True
    size = fitted_size(available, frame)
    window.resize(size)
    top_left = available.center() - QRect(0, 0, size.width(), size.height()).center()
    window.move(top_left.x(), max(available.top(), top_left.y()))
    return False
