"""The 'All scenarios' cost plot's legend at scale (issue 17): rows made only for the entries the
plot shows, laid out as pyqtgraph's legend lays every row out; work counted, not timed."""

from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from ftcost_gui.charts.scenario_plots import _once
from ftcost_gui.core.document import EstimateDocument, Scenario

N = 120


def _document(inputs, n: int) -> EstimateDocument:
    size = inputs.data.total_tokens
    return EstimateDocument(
        scenarios=tuple(
            Scenario(
                name=f"Scenario {i + 1}" if i != 77 else "A much longer scenario name, cut",
                inputs=inputs.edited("data", total_tokens=size * (1 + i / 97)),
            )
            for i in range(n)
        )
    )


class _Click:
    def button(self):
        return Qt.MouseButton.LeftButton

    def accept(self):
        pass


def _open(window, n: int):
    window.store.set_document(_document(window.store.inputs, n))
    window.results.show_tab(window.charts)
    window.charts.set_mode("scenarios")
    QApplication.processEvents()
    return window.charts.scenario_plots[1]


def test_the_legend_makes_rows_only_for_the_entries_the_plot_shows(window):
    window.store.inputs.data.mode == "tokens" or pytest.skip("the document edits total_tokens")
    window.resize(1024, 700)
    cost = _open(window, N)
    legend, vb = cost.legend, cost.view_box
    entries = [name for _item, name, _h in legend.entries]
    assert len(entries) == N + (1 if cost.spot_curves else 0)
    made = len(legend.items)
    assert made == legend.rows_made < N // 2  # the view box cuts the legend after ~20 rows
    # The rows made reach past the view box's bottom: every row it shows is made.
    last = legend.items[-1][1]
    assert legend.mapToItem(vb, last.geometry().topLeft()).y() >= vb.height()
    assert legend.mapToItem(vb, legend.items[-2][1].geometry().topLeft()).y() < vb.height()
    # Laid out as pyqtgraph's legend lays out every row: the same width, height and rows.
    ref = pg.LegendItem(offset=(-6, 6), labelTextSize="8pt", verSpacing=-6)
    ref.setParentItem(vb)
    with _once(ref, "updateSize"):  # as the plot adds entries: laid out once at the end
        for item, name, _h in legend.entries:
            ref.addItem(item, name)
    QApplication.processEvents()
    assert ref.geometry().width() == legend.geometry().width()  # the longest name's label
    assert ref.geometry().height() == pytest.approx(legend.boundingRect().height(), abs=1e-9)
    for (_s, label), (_rs, ref_label) in zip(legend.items, ref.items[:made], strict=True):
        assert label.text == ref_label.text
        got, want = label.geometry(), ref_label.geometry()
        assert (got.x(), got.width()) == (want.x(), want.width())
        assert got.y() == pytest.approx(want.y(), abs=1e-9)
        assert got.height() == pytest.approx(want.height(), abs=1e-9)
    vb.scene().removeItem(ref)
    # An edit and a selection change make no row; the selected scenario's name is marked
    # whether its row is made or not.
    window.store.select_scenario(100)
    QApplication.processEvents()
    assert legend.rows_made == made
    assert legend.entries[100][1].startswith("▶ ")
    assert not legend.entries[0][1].startswith("▶ ")
    # A taller view shows more rows: they are made then.
    window.resize(1024, 1000)
    QApplication.processEvents()
    assert len(legend.items) > made
    # A click on a row's sample hides its scenario's curve (painted from the cached image).
    sample, _label = legend.items[3]
    renders = cost.curve_set.renders
    sample.mouseClickEvent(_Click())
    QApplication.processEvents()
    assert not cost.curves[3].isVisible()
    assert cost.curve_set.renders == renders + 1
    assert cost.curves[3] not in [c for c in cost.curve_set.curves if c.isVisible()]
