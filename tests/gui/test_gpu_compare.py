"""The 'Which GPU' tab: the table is compare_gpus for the current inputs, ranked; adopt a GPU."""

from __future__ import annotations

from PySide6.QtCore import Qt

from ftcost_gui.core.compare import (
    cheapest_fitting,
    compare_gpus,
    fastest_fitting,
    rank_by_cost,
    rank_by_wall_clock,
)
from ftcost_gui.core.units import fmt_usd
from ftcost_gui.gui.gpu_compare_view import (
    CHEAPEST_COLOR,
    COL_GPU,
    FIT_COLOR,
    NO_FIT_COLOR,
    row_texts,
)


def _show(window):
    ui = window.catalog_ui
    window.result_tabs.setCurrentWidget(ui.compare_page)
    return ui, ui.compare_view


def _texts(view, row):
    return [view.table.item(row, c).text() for c in range(view.table.columnCount())]


def test_table_is_compare_gpus_ranked_by_cost(window):
    ui = window.catalog_ui
    assert ui.compare_view is None  # built when first shown
    ui, view = _show(window)
    rows = window.panels["hardware"].catalog.rows
    expected = compare_gpus(window.store.inputs, rows)
    assert view.comparisons == expected
    ranked = rank_by_cost(expected)
    assert [r.gpu_id for r in view.rows] == [r.gpu_id for r in ranked]
    assert view.table.rowCount() == len(rows) == 36
    cheapest = cheapest_fitting(expected)
    assert view.rows[0].gpu_id == cheapest.gpu_id
    first = _texts(view, 0)
    assert first[0] == "1" and first[COL_GPU].startswith("★ ")
    assert first[7] == fmt_usd(cheapest.on_demand_usd)
    assert first[5] == f"${cheapest.usd_per_1e18_flops:,.2f}"
    assert view.table.item(0, COL_GPU).font().bold()
    assert not view.table.item(1, COL_GPU).font().bold()
    for i in (1, 5, 20):
        r = ranked[i]
        marks = ("»" if r is fastest_fitting(ranked) else "") + ("◀" if r.current else "")
        assert _texts(view, i) == row_texts(r, i + 1, marks)
    h100 = next(i for i, r in enumerate(view.rows) if r.gpu_id == "h100-sxm")
    assert "◀" in _texts(view, h100)[COL_GPU]  # the estimate's own GPU
    assert "Cheapest that fits" in view.summary.text()
    # The chart: one bar per row, the cheapest marked, axis labels with units.
    assert view.chart.values == [r.on_demand_usd for r in ranked]
    assert view.chart.colors[0] == CHEAPEST_COLOR
    assert set(view.chart.colors[1:]) == {FIT_COLOR}
    assert view.chart.star.isVisible() and view.chart.star.toPlainText().startswith("★")
    assert "(USD)" in view.chart.getPlotItem().getAxis("bottom").labelText


def test_rank_by_wall_clock(window):
    _ui, view = _show(window)
    view.set_ranked_by("wall_clock")
    ranked = rank_by_wall_clock(view.comparisons)
    assert [r.gpu_id for r in view.rows] == [r.gpu_id for r in ranked]
    assert _texts(view, 0)[COL_GPU].startswith("»")
    assert view.rows[0].gpu_id == fastest_fitting(view.comparisons).gpu_id


def test_not_fitting_rows_go_last_and_grey(window):
    _ui, view = _show(window)
    window.store.set_field("training", "auto_gpu_count", False)
    window.store.set_field("training", "num_gpus", 1)
    window.store.recompute_now()  # the tab is visible: recomputed at once
    expected = compare_gpus(window.store.inputs, window.panels["hardware"].catalog.rows)
    assert view.comparisons == expected
    fits = [r.fits for r in view.rows]
    assert not all(fits) and any(fits)
    assert fits == sorted(fits, reverse=True)  # every fitting GPU above every other
    last = len(fits) - 1
    assert _texts(view, last)[0] == "–" and _texts(view, last)[2] == "no"
    assert "needs" in _texts(view, last)[3]
    assert view.chart.colors[last] == NO_FIT_COLOR


def test_recomputes_only_when_visible(window):
    ui, view = _show(window)
    window.result_tabs.setCurrentIndex(0)
    before = view.comparisons
    window.store.set_field("efficiency", "mfu", 0.5)
    window.store.recompute_now()
    assert ui._compare_stale and view.comparisons == before
    window.result_tabs.setCurrentWidget(ui.compare_page)
    assert not ui._compare_stale
    assert view.comparisons == compare_gpus(window.store.inputs, ui.service.rows)


def test_double_click_and_enter_adopt_a_gpu(window, qtbot):
    _ui, view = _show(window)
    target = 3
    gpu_id = view.rows[target].gpu_id
    assert gpu_id != window.store.inputs.hardware.gpu.id
    rect = view.table.visualItemRect(view.table.item(target, COL_GPU))
    vp = view.table.viewport()
    with qtbot.waitSignal(window.store.resultChanged, timeout=2000):
        # A real double-click is press, release, then the double-click event.
        qtbot.mouseClick(vp, Qt.MouseButton.LeftButton, pos=rect.center())
        qtbot.mouseDClick(vp, Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.store.inputs.hardware.gpu.id == gpu_id
    adopted = next(r for r in view.rows if r.gpu_id == gpu_id)
    assert adopted.current
    assert window.store.result.cost.on_demand_usd == adopted.on_demand_usd
    assert window.undo_stack.count() == 1
    assert window.panels["hardware"].gpu_combo.currentData() == gpu_id
    # Enter on another row.
    other = next(i for i, r in enumerate(view.rows) if not r.current)
    view.table.setCurrentCell(other, COL_GPU)
    qtbot.keyClick(view.table, Qt.Key.Key_Return)
    assert window.store.inputs.hardware.gpu.id == view.rows[other].gpu_id
    assert window.undo_stack.count() == 2
