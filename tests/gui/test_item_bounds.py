"""The cost plot's marker works its bounding rectangle out once per change (issue 17: counted,
never timed), and it is always the one pyqtgraph would work out now.

The scene asks an item for its bounding rectangle several times in one edit (its update, the
paint, the dirty-region pass); pyqtgraph's scatter item works it out every time (the pixel size
from the device transform). ``charts/marker.py`` remembers it until the spots, their sizes or
pens, or the view's transform change."""

from __future__ import annotations

import pytest
from pyqtgraph.graphicsItems.ScatterPlotItem import ScatterPlotItem
from PySide6.QtWidgets import QApplication

from .counting import record_calls


@pytest.fixture
def worked_out(monkeypatch):
    """Rectangles worked out by pyqtgraph's own code, per item (patched before the window: the
    scene's calls into the items go to the methods of their classes then)."""
    return record_calls(monkeypatch, ScatterPlotItem, "boundingRect", lambda s: s)


def test_the_cost_marker_works_its_rectangle_out_once_per_change(worked_out, window):
    """Per edit, the marker's rectangle is worked out at most once (pyqtgraph's: four times a
    sequence-length edit), and what is remembered equals what pyqtgraph works out now: after
    edits of every kind, a resize and a palette change."""
    marker = window.charts.cost_plot.marker
    store = window.store
    box = window.form_tabs.panels["training"].editor("training", "cpu_offload_optimizer")
    combo = window.form_tabs.panels["training"].editor("training", "checkpointing")
    for i, edit in enumerate(
        [
            lambda: store.set_field("data", "max_seq_len", 3584),
            lambda: store.set_field("efficiency", "mfu", 0.41),
            lambda: box.setChecked(not box.isChecked()),
            lambda: combo.setCurrentIndex((combo.currentIndex() + 1) % combo.count()),
            lambda: store.set_field("data", "max_seq_len", 2048),
            lambda: window.resize(window.width() - 60, window.height() - 40),
            lambda: store.set_field("data", "total_tokens", 7.5e7),
            lambda: window.charts.cost_plot.restyle(window.charts.cost_plot.theme),
            lambda: store.set_field("efficiency", "mfu", 0.33),
        ]
    ):
        worked_out.clear()
        edit()
        store.recompute_now()
        QApplication.processEvents()
        assert worked_out.count(marker) <= 1, i
        shown = marker.boundingRect().getRect()
        assert shown == ScatterPlotItem.boundingRect(marker).getRect(), i


def test_the_markers_rectangle_follows_new_spots_at_once(window):
    """Spots given, the next ask works the rectangle out anew (pyqtgraph resets its data
    bounds; the remembered rectangle goes with them) before any paint."""
    marker = window.charts.cost_plot.marker
    before = marker.boundingRect().getRect()
    x, y = marker.data["x"][0], marker.data["y"][0]
    marker.setData([{"pos": (x + 5.0, y * 1.5), "brush": marker.data["brush"][0]}])
    after = marker.boundingRect().getRect()
    assert after != before
    assert after == ScatterPlotItem.boundingRect(marker).getRect()
