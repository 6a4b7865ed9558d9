"""The scenario bar as it looks (issue 16, seen under Xvfb in both palettes)."""

from __future__ import annotations


def test_no_empty_tab_shaped_box_beside_the_last_scenario(window):
    # A document-mode tab bar in a toolbar drew its base line and frame across the bar's width:
    # an empty tab-shaped box right of "Scenario 1".
    tabs = window.scenarios.tabs
    assert tabs.count() == 1 and not tabs.drawBase()
