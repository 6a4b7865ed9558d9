"""A result tab shown is painted once: the updates and layout requests that showing its page
posted are delivered before the tab switch's paint (results_area._deliver_show_updates), for
every tab, the add-ons' included (issue 17). e93c2d0 painted the window 2-4 times per switch,
and the What Fits curves drawn in pieces by those passes differed from the window drawn at once
by a few hundred antialiased pixels."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication


class _WindowPaints(QObject):
    """Paint passes that reached the main window itself (a pass over its whole area)."""

    def __init__(self, window):
        super().__init__()
        self.window, self.count = window, 0

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and obj is self.window:
            self.count += 1
        return False


def _settle():
    for _ in range(30):  # timers of zero and posted events, as an idle event loop runs them
        QApplication.processEvents()


def test_each_result_tab_shown_again_paints_the_window_once(window):
    tabs = window.results.tabs
    titles = [tabs.tabText(i).replace("&", "") for i in range(tabs.count())]
    assert titles == [
        "Charts", "Breakdown", "Arithmetic", "Compare", "Which GPU", "Plan", "What Fits",
    ]  # fmt: skip
    for i in range(1, tabs.count()):  # every page built and filled once (first shows)
        tabs.setCurrentIndex(i)
        _settle()
    tabs.setCurrentIndex(0)
    _settle()
    paints = _WindowPaints(window)
    QApplication.instance().installEventFilter(paints)
    counted = {}
    try:
        for i in [1, 2, 3, 4, 5, 6, 0, 6, 3]:
            paints.count = 0
            tabs.setCurrentIndex(i)
            _settle()
            counted[titles[i]] = paints.count
    finally:
        QApplication.instance().removeEventFilter(paints)
    assert counted == dict.fromkeys(titles, 1)


def test_what_the_window_shows_after_a_switch_is_the_window_drawn_at_once(window):
    """The pixels on screen (the backing store) after each switch equal a fresh rendering of
    the whole window: no pass drew part of a page over another's."""
    tabs = window.results.tabs
    window.resize(1920, 1080)
    _settle()
    for i in [*range(1, tabs.count()), 0, 6, 5, 4, 3]:
        tabs.setCurrentIndex(i)
        _settle()
        shown = window.screen().grabWindow(window.winId()).toImage()
        drawn = window.grab().toImage()
        assert shown.convertToFormat(drawn.format()) == drawn, tabs.tabText(i)
