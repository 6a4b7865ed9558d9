"""The 'Which GPU' tab: the table is compare_gpus for the current inputs, ranked; adopt a GPU;
filters by provider and tier; work counted (rows estimated per edit, nothing while hidden)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from ftcost_gui.core.catalog import GpuCatalog
from ftcost_gui.core.compare import (
    PLAN_UNITS,
    cheapest_fitting,
    compare_gpus,
    fastest_fitting,
    rank_by_cost,
    rank_by_wall_clock,
)
from ftcost_gui.core.units import fmt_usd
from ftcost_gui.gui.catalog import which_gpu_tab
from ftcost_gui.gui.catalog.cost_chart import CHEAPEST_COLOR, FIT_COLOR, NO_FIT_COLOR
from ftcost_gui.gui.catalog.which_gpu_model import (
    COL_FITS,
    COL_GPU,
    COL_GPUS,
    COL_PROVIDER,
    COL_RUN,
    COL_TIER,
    row_texts,
)
from ftcost_gui.gui.catalog.which_gpu_view import NOT_STATED
from ftcost_gui.io.catalog_store import CatalogStore
from ftcost_gui.io.resources import builtin_catalog


def _show(window):
    ui = window.addons["catalogs"]
    ui.show_compare()
    return ui, ui.which_gpu.view


def _texts(view, row):
    m = view.model
    return [m.index(row, c).data() for c in range(m.columnCount())]


def _work(ui):
    c = ui.which_gpu.comparer
    return c.plans, c.finishes


def test_table_is_compare_gpus_ranked_by_cost(window):
    ui = window.addons["catalogs"]
    assert ui.which_gpu.view is None  # built when first shown
    ui, view = _show(window)
    rows = window.panels["hardware"].catalog.rows
    expected = compare_gpus(window.store.inputs, rows)
    assert view.comparisons == expected
    ranked = rank_by_cost(expected)
    assert [r.gpu_id for r in view.rows] == [r.gpu_id for r in ranked]
    assert view.model.rowCount() == len(rows) == 36
    cheapest = cheapest_fitting(expected)
    assert view.rows[0].gpu_id == cheapest.gpu_id
    first = _texts(view, 0)
    assert first[0] == "1" and first[COL_GPU].startswith("★ ")
    assert first[COL_RUN] == fmt_usd(cheapest.on_demand_usd)
    assert first[COL_RUN - 2] == f"${cheapest.usd_per_1e18_flops:,.2f}"
    assert view.model.index(0, COL_GPU).data(Qt.ItemDataRole.FontRole).bold()
    assert view.model.index(1, COL_GPU).data(Qt.ItemDataRole.FontRole) is None
    for i in (1, 5, 20):
        r = ranked[i]
        marks = ("»" if r is fastest_fitting(ranked) else "") + ("◀" if r.current else "")
        assert _texts(view, i) == row_texts(r, i + 1, marks)
    h100 = next(i for i, r in enumerate(view.rows) if r.gpu_id == "h100-sxm")
    assert "◀" in _texts(view, h100)[COL_GPU]  # the estimate's own GPU
    assert "Cheapest that fits" in view.summary.text()
    # The built-in catalog states no provider and one tier: those columns and filters are hidden.
    assert view.table.isColumnHidden(COL_PROVIDER) and view.table.isColumnHidden(COL_TIER)
    assert not view.filters.isVisibleTo(view)
    # The chart: one bar per row as far as the height gives each bar a readable name, the
    # cheapest marked, axis labels with units.
    k = view.chart.bars_that_fit()
    assert 3 <= k and (k == 40 or view.chart.height() - 56 < (k + 1) * 16)
    assert view.chart.values == [r.on_demand_usd for r in ranked[:k]]
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
    assert _texts(view, last)[0] == "–" and _texts(view, last)[COL_FITS] == "no"
    assert "needs" in _texts(view, last)[COL_GPUS]
    assert view.model.index(last, 0).data(Qt.ItemDataRole.ForegroundRole) is not None
    drawn = view.rows[: len(view.chart.colors)]
    assert [c == NO_FIT_COLOR for c in view.chart.colors] == [not r.fits for r in drawn]


def test_work_is_counted_nothing_while_hidden(window):
    """Issue 17: no estimate while the tab is hidden; one per row when shown; adopting a GPU
    re-estimates nothing; an MFU edit finishes each row once and plans none (a plan does not
    read the MFU); an edit a plan reads plans each GPU once."""
    ui = window.addons["catalogs"]
    n = len(ui.service.offers)
    assert _work(ui) == (0, 0)
    for mfu in (0.3, 0.35, 0.4):  # edits while hidden
        window.store.set_field("efficiency", "mfu", mfu)
        window.store.recompute_now()
    assert _work(ui) == (0, 0) and ui.which_gpu.stale
    ui, view = _show(window)
    assert _work(ui) == (n, n) and not ui.which_gpu.stale
    assert view.comparisons == compare_gpus(window.store.inputs, ui.service.rows)
    window.results.tabs.setCurrentIndex(0)  # hidden again
    window.store.set_field("efficiency", "mfu", 0.5)
    window.store.recompute_now()
    assert _work(ui) == (n, n)
    ui.show_compare()
    assert _work(ui) == (n, 2 * n)
    assert view.comparisons == compare_gpus(window.store.inputs, ui.service.rows)
    window.store.set_field("efficiency", "comm_overlap", 0.5)  # a plan reads it
    window.store.recompute_now()
    assert _work(ui) == (2 * n, 3 * n)
    assert view.comparisons == compare_gpus(window.store.inputs, ui.service.rows)
    # Adopting another GPU: only the inputs' own GPU changed, every row is known already.
    view._adopt(3)
    window.store.recompute_now()
    assert _work(ui) == (2 * n, 3 * n)
    assert view.rows[[r.current for r in view.rows].index(True)].gpu_id == view.rows[3].gpu_id
    # An edit while shown: each row once (an MFU edit: no plan).
    window.store.set_field("efficiency", "mfu", 0.45)
    window.store.recompute_now()
    assert _work(ui) == (2 * n, 4 * n)


def test_a_catalog_edit_estimates_the_changed_rows_only(window):
    ui, view = _show(window)
    n = len(ui.service.offers)
    assert _work(ui) == (n, n)
    h100 = builtin_catalog().find("h100-sxm")
    cheap = h100.model_copy(update={"on_demand_usd_per_hour": 1.25, "provider": "Lab"})
    store = CatalogStore()
    store.save(GpuCatalog(name="Lab", gpus=(cheap,)))
    ui.service.set_active("Lab")
    # One new offer (same GPU, another price): its plan is shared, one finish.
    assert _work(ui) == (n, n + 1)
    row = next(r for r in view.comparisons if r.gpu_id == "h100-sxm")
    assert row.on_demand_usd_per_hour == 1.25 and row.provider == "Lab"


def test_filters_by_provider_and_tier(window):
    builtin = builtin_catalog()
    h100, a100 = builtin.find("h100-sxm"), builtin.find("a100-80gb-sxm")
    offers = (
        h100.model_copy(update={"id": "h100-aws-1y", "provider": "AWS", "region": "us-east-1",
                                "pricing_tier": "committed_1y", "on_demand_usd_per_hour": 4.1}),
        h100.model_copy(update={"id": "h100-vast", "provider": "Vast.ai", "pricing_tier": "spot",
                                "spot_usd_per_hour": 1.6}),
        a100.model_copy(update={"id": "a100-aws", "provider": "AWS"}),
    )  # fmt: skip
    CatalogStore().save(GpuCatalog(name="Offers", gpus=offers))
    window.panels["hardware"].catalog.set_active("Offers")
    _ui, view = _show(window)
    assert view.filters.isVisibleTo(view)
    assert not view.table.isColumnHidden(COL_PROVIDER)
    assert not view.table.isColumnHidden(COL_TIER)
    assert view.model.rowCount() == 36 + 3
    view.set_filter(provider="AWS")
    assert sorted(r.gpu_id for r in view.rows) == ["a100-aws", "h100-aws-1y"]
    assert "2 shown by the filters" in view.summary.text()
    aws = next(i for i, r in enumerate(view.rows) if r.gpu_id == "h100-aws-1y")
    assert _texts(view, aws)[COL_PROVIDER] == "AWS · us-east-1"
    assert _texts(view, aws)[COL_TIER] == "1-year committed"
    view.set_filter(provider="", tier="spot")
    assert [r.gpu_id for r in view.rows] == ["h100-vast"]
    spot = view.rows[0]
    assert spot.run_usd == spot.spot_usd  # a spot row is costed on spot
    assert _texts(view, 0)[COL_RUN] == fmt_usd(spot.spot_usd)
    assert view.cheapest is spot and _texts(view, 0)[COL_GPU].startswith("★")
    view.set_filter(provider=NOT_STATED, tier="")
    assert len(view.rows) == 36 and all(not r.provider for r in view.rows)
    # Filters survive an edit.
    window.store.set_field("efficiency", "mfu", 0.33)
    window.store.recompute_now()
    assert len(view.rows) == 36


def test_large_catalog_is_compared_in_slices(window, qtbot):
    """The first slice runs on the edit, the rest between events; the table changes once."""
    h100 = builtin_catalog().find("h100-sxm")
    gpus = tuple(
        h100.model_copy(update={"id": f"h100-{i}", "on_demand_usd_per_hour": 1 + i / 100})
        for i in range(150)
    )
    CatalogStore().save(GpuCatalog(name="Many", gpus=gpus))
    window.panels["hardware"].catalog.set_active("Many")
    ui, view = _show(window)
    n = len(ui.service.offers)
    assert n == 36 + 150
    # The first slice: the 36 built-in GPUs come first, each a plan and a row.
    first = -(-which_gpu_tab.FIRST_SLICE_UNITS // (PLAN_UNITS + 1))
    assert first < 36
    assert f"Comparing 186 GPUs for these settings… {first} done" in view.summary.text()
    qtbot.waitUntil(lambda: not ui.which_gpu.stale, timeout=5000)
    before = view.comparisons
    for section, field, value, edit_slice, plans in (
        ("efficiency", "comm_overlap", 0.5, first, 36),  # the 36 built-in GPUs cost a plan each
        ("efficiency", "mfu", 0.31, which_gpu_tab.FIRST_SLICE_UNITS, 0),  # finishes only
    ):
        plans_before, finishes = _work(ui)
        window.store.set_field(section, field, value)
        window.store.recompute_now()
        # The edit ran one slice.
        assert _work(ui)[1] - finishes == edit_slice
        assert view.comparisons == before and "Comparing 186 GPUs" in view.summary.text()
        qtbot.waitUntil(lambda: not ui.which_gpu.stale, timeout=5000)
        assert _work(ui)[1] - finishes == n  # every row once
        assert _work(ui)[0] - plans_before == plans  # the 150 rows share the H100's plan
        assert view.comparisons == compare_gpus(window.store.inputs, ui.service.rows)
        before = view.comparisons


def test_a_large_catalogs_first_show_tells_the_tab_widget_of_two_layouts(window, qtbot):
    """The view's own layout changes (built, progress texts, the result) stay inside the tab's
    page unless they change the view's size hints: the tab widget, which repaints all of itself
    for each layout it is told of (QTabWidget::setUpLayout), hears of two (it heard of four to
    five while a layout held the view). A change of the hints still reaches it."""
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QApplication

    h100 = builtin_catalog().find("h100-sxm")
    gpus = tuple(
        h100.model_copy(update={"id": f"h100-{i}", "memory_gib": 60 + i / 4}) for i in range(100)
    )
    CatalogStore().save(GpuCatalog(name="Many", gpus=gpus))
    window.panels["hardware"].catalog.set_active("Many")
    tabs, told = window.results.tabs, []

    class Layouts(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.LayoutRequest:
                told.append(obj)
            return False

    counter = Layouts()
    tabs.installEventFilter(counter)
    try:
        ui, view = _show(window)
        assert len(ui.service.offers) > which_gpu_tab.SMALL_CATALOG
        qtbot.waitUntil(lambda: not ui.which_gpu.stale, timeout=5000)
        QApplication.processEvents()
    finally:
        tabs.removeEventFilter(counter)
    assert ui.which_gpu.comparer.plans >= 100 and len(view.rows) == 136  # sliced, all compared
    # The chart has no right-click menu: its view's menu is never built.
    assert not view.chart.getViewBox().menuEnabled() and not view.chart.getViewBox().menu_built
    assert len(told) <= 2
    page = ui.which_gpu.page
    assert view.geometry() == page.rect()  # the view fills the page, as a layout made it
    assert (page.sizeHint(), page.minimumSizeHint()) == (view.sizeHint(), view.minimumSizeHint())
    # A change of the view's hints reaches the tab widget (and the window's minimum).
    view.summary.setMinimumWidth(1500)
    QApplication.processEvents()
    QApplication.processEvents()
    assert tabs.minimumSizeHint().width() >= 1500


def test_double_click_and_enter_adopt_a_gpu(window, qtbot):
    _ui, view = _show(window)
    target = 3
    gpu_id = view.rows[target].gpu_id
    assert gpu_id != window.store.inputs.hardware.gpu.id
    rect = view.table.visualRect(view.model.index(target, COL_GPU))
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
    view.table.setCurrentIndex(view.model.index(other, COL_GPU))
    qtbot.keyClick(view.table, Qt.Key.Key_Return)
    assert window.store.inputs.hardware.gpu.id == view.rows[other].gpu_id
    assert window.undo_stack.count() == 2


@pytest.mark.parametrize("tier", ["committed_3y"])
def test_tier_labels_in_the_table(tier):
    from ftcost_gui.core.catalog import TIER_LABELS

    assert TIER_LABELS[tier] == "3-year committed"


def test_the_chart_draws_what_its_height_can_name(window, qtbot):
    _ui, view = _show(window)
    n = len(view.rows)
    window.resize(1024, 700)
    qtbot.waitUntil(lambda: view.chart.bars_that_fit() < 20, timeout=2000)
    small = len(view.chart.values)
    assert small == view.chart.bars_that_fit() < n
    assert f"Bars: the first {small} of {n}" in view.legend.text()
    window.resize(1400, 1600)
    qtbot.waitUntil(lambda: len(view.chart.values) == min(n, 40), timeout=2000)
    assert "first" not in view.legend.text()
