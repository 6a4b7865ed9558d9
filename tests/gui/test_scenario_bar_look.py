"""The scenario bar as it looks (issue 16, seen under Xvfb in both palettes)."""

from __future__ import annotations

from ftcost_gui.gui.window.scenario_bar import LEAST_NAME_CHARS


def test_no_empty_tab_shaped_box_beside_the_last_scenario(window):
    # A document-mode tab bar in a toolbar drew its base line and frame across the bar's width:
    # an empty tab-shaped box right of "Scenario 1".
    tabs = window.scenarios.tabs
    assert tabs.count() == 1 and not tabs.drawBase()


def _twelve_in_a_small_window(window, qtbot):
    for _ in range(11):
        window.action("add_scenario").trigger()
    window.resize(1024, 700)
    qtbot.waitUntil(lambda: window.width() == 1024)
    return window.scenarios.tabs


def _shown_whole(tabs, index):
    rect = tabs.tabRect(index)
    return 0 <= rect.left() and rect.right() < tabs.width()


def test_many_scenarios_keep_their_names_and_scroll(window, qtbot):
    # At 1024 px twelve tabs all read "S…" (Qt shrinks eliding tabs to two letters before it
    # scrolls): no scenario could be told from another without hovering.
    tabs = _twelve_in_a_small_window(window, qtbot)
    assert tabs.count() == 12
    metrics = tabs.fontMetrics()
    least_px = LEAST_NAME_CHARS * metrics.averageCharWidth()
    # "Scenario N" is shorter than the least a tab keeps of its name: each tab whole
    assert all(metrics.horizontalAdvance(tabs.tabText(i)) <= least_px for i in range(12))
    for i in range(12):
        assert tabs.tabRect(i).width() >= tabs.tabSizeHint(i).width(), i
    assert sum(tabs.tabRect(i).width() for i in range(12)) > tabs.width()  # the rest scrolls
    for selected in (0, 11, 5):  # the selected tab is scrolled into view
        window.store.select_scenario(selected)
        qtbot.waitUntil(lambda i=selected: _shown_whole(tabs, i))


def test_a_long_name_gives_up_only_its_tail(window, qtbot):
    tabs = _twelve_in_a_small_window(window, qtbot)
    long_name = "Llama 2 7B, full fine-tune on the support-ticket set, 8xH100 spot"
    assert window.store.rename_scenario(3, long_name) == ""
    metrics = tabs.fontMetrics()
    whole = tabs.tabSizeHint(3).width()
    kept_px = (
        whole - metrics.horizontalAdvance(long_name) + LEAST_NAME_CHARS * metrics.averageCharWidth()
    )
    assert tabs.tabRect(3).width() < whole  # shrunk: the name is elided
    assert tabs.tabRect(3).width() >= kept_px  # but keeps its first 14 characters or so
    assert tabs.tabRect(3).width() >= tabs.tabRect(2).width()  # never less than a short name's
