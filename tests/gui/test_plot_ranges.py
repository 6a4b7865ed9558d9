"""An edit sets each plot's view range once (issue 17: counted, never timed): x and y in one
``setRange`` call, not one call per axis (each call turns auto-range off, works the view range
out and tells the view's items), and to the ranges the plots always had."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import QApplication

from ftcost_gui.charts.memory_plot import WIDTH

from .counting import record_calls


def test_an_edit_sets_each_plots_view_range_once(window, monkeypatch):
    ranges = record_calls(monkeypatch, pg.ViewBox, "setRange", lambda view, *a: view)
    cost, memory = window.charts.cost_plot, window.charts.memory_plot
    store = window.store
    box = window.form_tabs.panels["training"].editor("training", "cpu_offload_optimizer")
    for i, edit in enumerate(
        [
            lambda: store.set_field("data", "max_seq_len", 3584),
            lambda: box.setChecked(not box.isChecked()),
            lambda: store.set_field("training", "method", "full_bf16_adamw"),  # five bars
            lambda: store.set_field("efficiency", "mfu", 0.61),  # x reaches past 62 %
        ]
    ):
        ranges.clear()
        edit()
        store.recompute_now()
        QApplication.processEvents()
        assert ranges.count(cost.view_box) == 1, i  # (4d41ae9: 2)
        assert ranges.count(memory.view_box) <= 1, i  # (4d41ae9: 2; none when the bars stay)
        mfu, od, _spot = cost.current
        ymax = max(float(cost.od.max()), od, *([] if cost.spot is None else [cost.spot.max()]))
        assert cost.view_box.viewRange() == [
            [min(8.0, mfu - 2), max(62.0, mfu + 2)],
            [0.0, ymax * 1.08],
        ], i
        n = len(memory.methods)
        assert memory.view_box.viewRange()[0] == [-0.6, n - 0.4], i
        assert WIDTH < 1  # (bars of width WIDTH at 0 … n-1 fit the x range)
