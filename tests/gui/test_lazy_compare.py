"""The Compare tab's view built when the tab is first shown (issue 17: start-up), counted: edits
while it was never shown build nothing; shown by a keyboard shortcut right after the window, it
is complete before anything is painted; built late it shows what it shows built with the window
(pixels), and the baseline it reports is the same."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from ftcost_gui.io.resources import resource_path


def _window(qtbot, *, compare_now: bool):
    from ftcost_gui.gui.app import build_window

    w = build_window()
    qtbot.addWidget(w)
    if compare_now:  # as the window built it before issue 17
        assert w.results.compare is not None
    w.resize(1200, 800)
    w.show()
    qtbot.waitExposed(w)
    return w


def test_the_view_is_built_when_its_tab_is_first_shown(qtbot, article_000_first):
    w = _window(qtbot, compare_now=False)
    results = w.results
    assert not results.compare_built
    assert results.compare_page.findChildren(QWidget) == []
    w.store.duplicate_scenario()  # the tab is not on screen: nothing compared, nothing built
    w.store.set_field("efficiency", "mfu", 0.33, at_once=True)
    assert not results.compare_built
    assert results.compare_baseline == 0
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow, timeout=2000)
    # Ctrl+M (Compare Methods) adds the Full FT / LoRA / QLoRA copies and shows the tab; what
    # follows is asserted before any event is processed, so before the tab is painted.
    qtbot.keyClick(w.form_tabs, Qt.Key.Key_M, Qt.KeyboardModifier.ControlModifier)
    assert results.tab_shown(results.compare) and results.compare_built
    view = results.compare
    assert view.parent() is results.compare_page and view.isVisible()
    assert view.geometry() == results.compare_page.rect()
    scenarios = len(w.store.document.scenarios)
    assert scenarios == 5
    assert view.model.columnCount() == scenarios and view.model.rowCount() == 9
    assert view.baseline_combo.count() == scenarios


def test_a_view_built_late_shows_what_it_shows_when_built_with_the_window(qtbot, article_000_first):
    late, early = _window(qtbot, compare_now=False), _window(qtbot, compare_now=True)
    for w in (late, early):
        w.files.load_path(resource_path("examples", "article-001-7b-lora.ftcost"))
        w.store.duplicate_scenario()
        w.store.set_field("data", "max_seq_len", 8192, at_once=True)
        w.store.recompute_now()
    assert not late.results.compare_built and early.results.compare_built
    shots = []
    for w in (late, early):
        w.results.show_tab(w.results.compare)
        qtbot.wait(1)
        shots.append(w.grab().toImage())
    assert shots[0] == shots[1]
    for w in (late, early):  # a baseline picked in the view, as the window's exports read it
        combo = w.results.compare.baseline_combo
        combo.activated.emit(1)
        assert w.results.compare_baseline == 1
    for w in (late, early):  # back on the plots (laid out again once the events run)
        w.results.show_tab(w.charts)
    qtbot.waitUntil(lambda: late.grab().toImage() == early.grab().toImage(), timeout=3000)
