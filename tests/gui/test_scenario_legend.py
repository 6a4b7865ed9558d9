"""The 'All scenarios' cost plot's legend at scale (issue 17): rows made only for the entries the
plot shows, laid out as pyqtgraph's legend lays its rows out; work counted, not timed. It covers
at most half the plot (charts/scenario_legend.SHARE): more entries end in "+ N more"."""

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


def _like_pyqtgraphs(legend, vb, entries, made: int) -> None:
    """The rows shown are laid out as pyqtgraph's legend lays out the same entries."""
    ref = pg.LegendItem(offset=(-6, 6), labelTextSize="8pt", verSpacing=-6)
    ref.setParentItem(vb)
    with _once(ref, "updateSize"):  # as the plot adds entries: laid out once at the end
        for item, name, _h in entries:
            ref.addItem(item, name)
    QApplication.processEvents()
    for (_s, label), (_rs, ref_label) in zip(legend.items, ref.items[:made], strict=True):
        assert label.text == ref_label.text
        got, want = label.geometry(), ref_label.geometry()
        assert got.x() == want.x()
        assert got.y() == pytest.approx(want.y(), abs=1e-9)
        assert got.height() == pytest.approx(want.height(), abs=1e-9)
    if made == len(entries):  # all shown: the same frame
        assert ref.geometry().width() == legend.geometry().width()
        assert ref.geometry().height() == pytest.approx(legend.boundingRect().height(), abs=1e-9)
    vb.scene().removeItem(ref)


def _frame_bottom(legend, vb) -> float:
    return legend.mapRectToItem(vb, legend.boundingRect()).bottom()


def test_a_few_scenarios_are_all_listed_as_pyqtgraph_lists_them(window):
    window.resize(1920, 1080)
    cost = _open(window, 3)
    legend, vb = cost.legend, cost.view_box
    assert len(legend.items) == len(legend.entries) and not legend._cap
    assert legend.more is None or not legend.more.isVisible()
    _like_pyqtgraphs(legend, vb, legend.entries, len(legend.entries))


def test_many_scenarios_cover_at_most_half_the_plot_and_name_the_rest(window):
    window.store.inputs.data.mode == "tokens" or pytest.skip("the document edits total_tokens")
    window.resize(1024, 700)
    cost = _open(window, N)
    legend, vb = cost.legend, cost.view_box
    entries = [name for _item, name, _h in legend.entries]
    spot = bool(cost.spot_curves)
    assert len(entries) == N + spot
    made = len(legend.items)
    assert made == legend.rows_made >= 2  # rows made for the entries shown only
    assert _frame_bottom(legend, vb) <= vb.height() / 2 + 1  # half the plot, at most
    more = legend.more
    assert more is not None and more.isVisible()
    assert more.text == f"+ {N - made} more" + (" · spot dashed" if spot else "")
    # "+ N more" is the frame's last row, in the label column
    last = legend.items[-1][1].geometry()
    assert more.pos().x() == last.x() and more.pos().y() > last.y()
    assert legend.mapRectToItem(vb, more.mapRectToParent(more.boundingRect())).bottom() <= (
        _frame_bottom(legend, vb) + 1e-6
    )
    _like_pyqtgraphs(legend, vb, legend.entries, made)
    # An edit and a selection change make no row; the selected scenario's name is marked
    # whether its row is made or not, and "+ N more" says it is among them.
    window.store.select_scenario(100)
    QApplication.processEvents()
    assert legend.rows_made == made
    assert legend.entries[100][1].startswith("▶ ")
    assert not legend.entries[0][1].startswith("▶ ")
    assert more.text.endswith("(▶ among them)")
    # A taller view shows more rows, still over half the plot at most; a shorter one fewer.
    window.resize(1024, 1000)
    QApplication.processEvents()
    taller = len(legend.items)
    assert taller > made and _frame_bottom(legend, vb) <= vb.height() / 2 + 1
    assert more.text.startswith(f"+ {N - taller} more")
    window.resize(1024, 700)
    QApplication.processEvents()
    assert len(legend.items) == made and _frame_bottom(legend, vb) <= vb.height() / 2 + 1
    # A click on a row's sample hides its scenario's curve (painted from the cached image).
    sample, _label = legend.items[1]
    renders = cost.curve_set.renders
    sample.mouseClickEvent(_Click())
    QApplication.processEvents()
    assert not cost.curves[1].isVisible()
    assert cost.curve_set.renders == renders + 1
    assert cost.curves[1] not in [c for c in cost.curve_set.curves if c.isVisible()]
