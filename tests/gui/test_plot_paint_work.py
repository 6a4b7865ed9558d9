"""The plots' paint work per edit (issue 17): what the Python side of a plot paint asks Qt,
counted, never timed. The pixels are pinned by test_axis.py (and the session's grabs)."""

from __future__ import annotations

from PySide6.QtGui import QPen
from PySide6.QtWidgets import QApplication

from .counting import record_calls


def _edit_seq_len(window, value: int) -> None:
    store = window.store
    store.set_field("data", "max_seq_len", value)
    store.recompute_now()
    QApplication.processEvents()


def test_axes_drawing_kept_specs_ask_no_tick_pen_again(window, monkeypatch):
    """A sequence length edited back and forth brings back each left axis's range and the
    specs worked out for it (charts/axis.py). Drawing them asks none of the tick pens whether
    a grid line can be filled as a pixel row: that was worked out with the specs (it asked
    five pen properties of each horizontal tick on every paint; the cap style is the one no
    other item asks)."""
    asked = record_calls(monkeypatch, QPen, "capStyle", lambda pen: pen)
    lengths = (3072, 4608)  # (the window starts at neither)
    for step in range(6):
        asked.clear()
        _edit_seq_len(window, lengths[step % 2])
        if step < 2:  # the first time each range is shown: its specs are worked out
            assert asked, step
        else:
            assert asked == [], step


def test_text_labels_in_the_plots_are_never_asked_to_paint(monkeypatch, qtbot, article_000_first):
    """The memory plot's GPU-count labels and the cost plot's band label paint nothing of their
    own (their text is a child item): Qt does not call their Python ``paint`` (a167e96: six
    calls a sequence-length edit). They still follow the view: each label's transform is worked
    out from its parent's scene transform with the view's scale as it is now (a move of the
    view alone leaves the label's transform as it is: pyqtgraph drops the translation)."""
    import pyqtgraph as pg

    from ftcost_gui.gui.app import build_window

    painted = record_calls(monkeypatch, pg.TextItem, "paint", lambda item, *_a: item)
    window = build_window(build_plots_now=True)  # (after the patch: Qt finds it)
    qtbot.addWidget(window)
    window.resize(1200, 800)
    window.show()
    qtbot.waitExposed(window)
    charts = window.charts
    labels = [*charts.memory_plot.count_labels, charts.cost_plot.band_label]
    for step, length in enumerate((3072, 4608, 3072, 8192)):
        painted.clear()
        _edit_seq_len(window, length)
        assert not [item for item in painted if item in labels], step
        shown = [label for label in labels if label.isVisible()]
        assert len(shown) >= 5, step  # four methods' counts and the band's label
        for label in shown:
            now, then = label.parentItem().sceneTransform(), label._lastTransform
            assert (then.m11(), then.m22()) == (now.m11(), now.m22()), step


def test_legend_entries_bounds_are_qts_own_and_the_same(monkeypatch, qtbot, article_000_first):
    """The scene asks the legends' samples and the labels ``show_legend`` makes (the memory
    legend's) for their bounding rectangles on every edit that repaints them; they answer with
    Qt's own ``rect()``, never through Python (a167e96: ~26 calls a sequence-length edit, more
    when the memory legend gains a row). The rectangles are the ones pyqtgraph's Python methods
    give: the fixed 20 × 20 px (a sample) and the geometry mapped from the parent (a label)."""
    import pyqtgraph as pg
    from PySide6.QtCore import QRectF

    from ftcost_gui.charts.base import LegendLabel
    from ftcost_gui.gui.app import build_window

    asked = [  # pyqtgraph's Python boundingRect of widgets (labels) and of legend samples
        record_calls(monkeypatch, owner, "boundingRect", lambda item: item)
        for owner in (pg.GraphicsWidget, pg.ItemSample)
    ]
    window = build_window(build_plots_now=True)  # (after the patches: Qt finds them)
    qtbot.addWidget(window)
    window.resize(1200, 800)
    window.show()
    qtbot.waitExposed(window)
    plots = (window.charts.memory_plot, window.charts.cost_plot)
    box = window.form_tabs.panels["training"].editor("training", "cpu_offload_optimizer")
    for step in range(4):
        for calls in asked:
            calls.clear()
        if step % 2:
            box.setChecked(not box.isChecked())  # the memory legend gains or loses a row
            QApplication.processEvents()
        else:
            _edit_seq_len(window, (3072, 4608)[step // 2])
        entries = {
            id(it)
            for plot in plots
            for entry in plot.legend.items
            for it in entry
            if isinstance(it, (pg.ItemSample, LegendLabel))
        }
        assert len(entries) >= 16, step  # both legends' samples, the memory legend's labels
        assert not [item for calls in asked for item in calls if id(item) in entries], step
        for plot in plots:
            for sample, label in plot.legend.items:
                assert sample.boundingRect() == QRectF(0, 0, 20, 20), step
                rect = label.mapRectFromParent(label.geometry()).normalized()
                assert label.boundingRect().getRect() == rect.getRect(), step
