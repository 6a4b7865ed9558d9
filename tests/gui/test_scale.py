"""Work per edit does not grow with the number of scenarios (issue 17): counted, never timed.

One edit of the selected scenario, with 4 and with 40 scenarios, while the Compare tab or the
'all scenarios' charts are on screen: the estimates run, the comparison tables built, the cells
worded and the curves redrawn are counted. Before issue 17 the Compare table re-measured a whole
row for every cell it filled (quadratic in scenarios) and the charts rebuilt every curve and
legend entry on every edit.
"""

from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtWidgets import QApplication

from ftcost_gui.core.document import EstimateDocument, Scenario
from ftcost_gui.gui import compare_view
from ftcost_gui.present.tables import ComparisonTable

SIZES = (4, 40)


def _size_field(inputs) -> str:
    """The data field that sets the run's size (the figures, curves included, follow it)."""
    return "total_tokens" if inputs.data.mode == "tokens" else "num_examples"


def _times(field: str, value: float, factor: float) -> float:
    return round(value * factor) if field == "num_examples" else value * factor


def _document(inputs, n: int) -> EstimateDocument:
    """n scenarios that all differ in their figures (so none shares another's estimate)."""
    field = _size_field(inputs)
    size = getattr(inputs.data, field)
    return EstimateDocument(
        scenarios=tuple(
            Scenario(
                name=f"S{i}",
                inputs=inputs.edited("data", **{field: _times(field, size, 1 + i / 64)}),
            )
            for i in range(n)
        )
    )


@pytest.fixture
def work(monkeypatch, counted):
    """Estimates (``counted``), comparison tables built, cells worded, curves given new data."""
    from ftcost_gui.charts.curve_layer import Curve

    tables, cell, set_data, curve_data, scenario_data = (
        compare_view.comparison_table,
        ComparisonTable.cell,
        pg.PlotDataItem.setData,
        pg.PlotCurveItem.setData,
        Curve.setData,
    )

    def counting_table(*args, **kwargs):
        counted["tables"] += 1
        return tables(*args, **kwargs)

    def counting_cell(self, i, j, *worded):
        counted["cells"] += 1
        return cell(self, i, j, *worded)

    def counting_set_data(self, *args, **kwargs):
        counted["curves"] += 1
        return set_data(self, *args, **kwargs)

    def counting_curve_data(self, *args, **kwargs):
        if not isinstance(self.parentItem(), pg.PlotDataItem):  # counted as its PlotDataItem
            counted["curves"] += 1
        return curve_data(self, *args, **kwargs)

    def counting_scenario_data(self, *args, **kwargs):  # the all-scenario cost curves
        counted["curves"] += 1
        return scenario_data(self, *args, **kwargs)

    counted.update(tables=0, cells=0, curves=0)
    monkeypatch.setattr(Curve, "setData", counting_scenario_data)
    monkeypatch.setattr(compare_view, "comparison_table", counting_table)
    monkeypatch.setattr(ComparisonTable, "cell", counting_cell)
    monkeypatch.setattr(pg.PlotDataItem, "setData", counting_set_data)
    monkeypatch.setattr(pg.PlotCurveItem, "setData", counting_curve_data)
    return counted


def _one_edit(window, work, factor: float) -> dict[str, int]:
    """The selected scenario's size × factor, recomputed and painted; the work it took."""
    for key in ("plan", "memory", "tables", "cells", "curves"):
        work[key] = 0
    inputs = window.store.inputs
    field = _size_field(inputs)
    assert window.store.set_field("data", field, _times(field, getattr(inputs.data, field), factor))
    window.store.recompute_now()
    QApplication.processEvents()  # the views paint: the cells on screen are worded now
    return dict(work)


def test_an_edit_with_the_compare_tab_on_screen_is_linear_in_scenarios(window, work):
    per_size = {}
    for n in SIZES:
        window.store.set_document(_document(window.store.inputs, n))
        window.results.show_tab(window.results.compare)
        QApplication.processEvents()
        per_size[n] = _one_edit(window, work, 1.37)
        rows = len(window.results.compare.comparison.labels)
        # One estimate (the edited scenario), one table; each metric cell worded at most once.
        assert per_size[n]["plan"] == 1 and per_size[n]["tables"] == 1
        assert 0 < per_size[n]["cells"] <= rows * n
    # The cells worded grow with the scenarios at most linearly: each cell once, never a row
    # per cell (40 scenarios × 10 times the cells of 4, not 100 times).
    assert per_size[40]["cells"] <= 10 * per_size[4]["cells"]


def test_a_baseline_edit_words_the_deltas_and_not_the_values_that_stay(window, monkeypatch):
    """An edit of the baseline moves every delta and no other scenario's value: the cells on
    screen keep the words they said of their values (before: every value worded again), and
    read as the table words them afresh."""
    from ftcost_gui.present import tables

    calls = {"fmt_metric": 0, "fmt_delta": 0}

    def counting(name: str):
        real = getattr(tables, name)

        def call(*args):
            calls[name] += 1
            return real(*args)

        return call

    for name in calls:
        monkeypatch.setattr(tables, name, counting(name))
    window.resize(1920, 1080)  # columns as wide as their lines: ~10 on screen
    window.store.set_document(_document(window.store.inputs, 40))
    window.results.show_tab(window.results.compare)
    QApplication.processEvents()
    view = window.results.compare
    _one_edit(window, {}, 1.37)  # (the first after the tab lays the table out)
    for factor in (1.0001, 1.01, 0.99):
        calls.update(fmt_metric=0, fmt_delta=0)
        _one_edit(window, {}, factor)
        rows = len(view.comparison.labels)
        assert calls["fmt_delta"] > 4 * rows  # the deltas of the columns on screen
        # A delta words its amount (fmt_metric) once at most; the values worded are the
        # baseline's own.
        assert calls["fmt_metric"] <= calls["fmt_delta"] + rows
        table = view.comparison
        for (i, j), cell in view.model._cells.items():
            assert cell == table.cell(i, j)


def test_an_edit_makes_the_stage_of_the_edited_scenario_only(window, monkeypatch):
    """The Compare tab's stages line sums every scenario's stage (core/stages.py): an edit
    makes the edited scenario's stage and keeps the others' (before: 40 stages an edit), and
    the line reads as worked out afresh."""
    from ftcost_gui.core import stages as core_stages
    from ftcost_gui.present.objective import stages_text

    made = {"stages": 0}
    stage = compare_view.stage

    def counting_stage(name, result):
        made["stages"] += 1
        return stage(name, result)

    monkeypatch.setattr(compare_view, "stage", counting_stage)
    window.store.set_document(_document(window.store.inputs, 40))
    window.results.show_tab(window.results.compare)
    QApplication.processEvents()
    view = window.results.compare
    for factor in (1.37, 1.0001, 0.9):
        made["stages"] = 0
        _one_edit(window, {}, factor)
        assert made["stages"] == 1
        scenarios = window.store.document.scenarios
        fresh = stages_text(
            [s.name for s in scenarios],
            window.store.results,
            [s.inputs.hardware.gpu.pricing_tier for s in scenarios],
            core_stages.stage,
        )
        assert view.stages.text() == fresh
    window.store.select_scenario(3)
    made["stages"] = 0
    _one_edit(window, {}, 1.2)
    assert made["stages"] == 1


def test_an_edit_of_a_scenario_that_is_not_the_baseline_repaints_its_column_only(window, work):
    """Its values and its deltas change, no other scenario's cell (the best stays where it is):
    the table repaints one column, not every cell on screen (the cells worded are those
    painted: each table words its cells when the view asks)."""
    window.store.set_document(_document(window.store.inputs, 40))
    window.store.select_scenario(3)
    window.results.show_tab(window.results.compare)
    QApplication.processEvents()
    table = window.results.compare.table
    assert table.columnViewportPosition(3) >= 0  # on screen
    _one_edit(window, work, 1.1)  # the first edit after the tab was shown lays the table out
    got = _one_edit(window, work, 1.37)
    rows = len(window.results.compare.comparison.labels)
    assert got["plan"] == 1 and got["tables"] == 1
    assert 0 < got["cells"] <= rows  # S3's column (the fits row is not a worded cell)


def test_an_edit_with_the_scenario_charts_on_screen_redraws_one_curve(window, work):
    per_size = {}
    for n in SIZES:
        window.store.set_document(_document(window.store.inputs, n))
        window.results.show_tab(window.charts)
        window.charts.set_mode("scenarios")
        QApplication.processEvents()
        cost = window.charts.scenario_plots[1]
        curves = list(cost.curves)
        assert len(curves) == n
        old = cost.ods[0]
        per_size[n] = _one_edit(window, work, 1.37)
        assert (cost.ods[0] > old).all()  # the edited scenario's curve was redrawn
        assert cost.curves == curves  # the same items, changed in place
        assert len(cost.legend.entries) == n + (1 if cost.spot_curves else 0)
    # One estimate; the edited scenario's curves (on-demand, spot) and the memory plot's two
    # per-GPU mark lines get new data, whatever the number of scenarios.
    assert per_size[4] == per_size[40]
    assert per_size[4]["plan"] == 1 and per_size[4]["curves"] <= 4


def _painting_order(cost) -> list:
    """The curves of the cost plot in the order they are painted: each scenario's on-demand
    curve, then its spot curve, over the previous scenario's."""
    return [c for pair in zip(cost.curves, cost._spot_items, strict=True) for c in pair if c]


def test_an_edit_with_the_scenario_charts_on_screen_strokes_the_edited_scenarios_curves_only(
    window,
):
    """One item paints every scenario curve (no graphics item per curve); the curves of the
    scenarios an edit leaves alone are painted from cached images: one edit of the selected
    scenario strokes its two curves, whatever the number of scenarios; selecting another
    scenario paints each image once again; the painting order never changes (each scenario's
    curves above the previous one's); export strokes every curve itself."""
    from PySide6.QtGui import QImage, QPainter

    from ftcost_gui.charts.curve_layer import Curve

    window.store.set_document(_document(window.store.inputs, 40))
    window.results.show_tab(window.charts)
    window.charts.set_mode("scenarios")
    QApplication.processEvents()
    cost = window.charts.scenario_plots[1]
    curve_set = cost.curve_set
    # No graphics item per scenario: the view box holds the one that paints them all.
    lines = (cost.range_low, cost.range_high)  # the selected scenario's range (CostPlot's)
    assert not [
        i for i in cost.view_box.addedItems if isinstance(i, pg.PlotCurveItem) and i not in lines
    ]
    assert all(isinstance(c, Curve) for c in cost.curves)
    curves = len(cost.curves) + len(cost.spot_curves)
    order = _painting_order(cost)
    assert curve_set.curves == order and len(order) == curves
    assert curve_set.renders >= 1  # painted: images made
    _one_edit_plain(window, 1.1)  # the axes took their labels' width after the first paint
    renders = curve_set.renders
    live = 2 if cost.spot_curves else 1
    assert curve_set.runs == [order[live:]]  # S0 selected: its curves live, the rest cached
    for factor in (1.05, 1.02):  # S0 stays below the largest scenario: the same axes
        curve_set.strokes = 0
        _one_edit_plain(window, factor)
        assert 0 < curve_set.strokes <= live  # the selected scenario's curves, as often as painted
        assert curve_set.renders == renders  # no image again
    assert curve_set.curves == _painting_order(cost) == order
    # Another scenario selected: its curves paint live, the others from an image before and
    # after them.
    window.store.select_scenario(5)
    QApplication.processEvents()
    assert curve_set.curves == order
    i = order.index(cost.curves[5])
    assert curve_set.runs == [order[:i], order[i + live :]]
    assert curve_set.live == tuple(order[i : i + live])
    # A cached curve hidden (a click on its legend entry): its image is painted again without it.
    renders = curve_set.renders
    curve_set.strokes = 0
    cost.curves[20].setVisible(False)
    QApplication.processEvents()
    assert curve_set.renders == renders + 1
    assert curve_set.strokes <= curves - 1
    # Export (no widget: report, PNG, SVG) strokes every curve shown itself.
    curve_set.strokes = 0
    image = QImage(400, 300, QImage.Format.Format_ARGB32_Premultiplied)
    painter = QPainter(image)
    cost.plot_widget.scene().render(painter)
    painter.end()
    assert curve_set.strokes == curves - 1


def _one_edit_plain(window, factor: float) -> None:
    inputs = window.store.inputs
    field = _size_field(inputs)
    assert window.store.set_field("data", field, _times(field, getattr(inputs.data, field), factor))
    window.store.recompute_now()
    QApplication.processEvents()


def test_progress_texts_of_a_large_which_gpu_refresh_do_not_lay_the_window_out(window, monkeypatch):
    """A catalog compared in many slices shows its progress in the summary; while it compares
    the summary keeps its size, so a text repaints the summary and lays nothing out (each text
    laid the whole window out again: ~30 layouts per 5,000-row refresh)."""
    from PySide6.QtCore import QEvent, QObject

    from ftcost_gui.core.catalog import GpuCatalog
    from ftcost_gui.gui.catalog import which_gpu_tab
    from ftcost_gui.io.catalog_store import CatalogStore
    from ftcost_gui.io.resources import builtin_catalog

    h100 = builtin_catalog().find("h100-sxm")
    gpus = tuple(
        h100.model_copy(update={"id": f"h100-{i}", "memory_gib": 60 + i / 4}) for i in range(60)
    )
    CatalogStore().save(GpuCatalog(name="Many", gpus=gpus))
    window.panels["hardware"].catalog.set_active("Many")
    from ftcost_gui.core.compare import PLAN_UNITS

    monkeypatch.setattr(which_gpu_tab, "SLICE_UNITS", PLAN_UNITS + 1)  # a slice: one GPU
    monkeypatch.setattr(which_gpu_tab, "_PROGRESS_EVERY", 2)  # a text every other slice
    ui = window.addons["catalogs"]
    ui.show_compare()
    tab, view = ui.which_gpu, ui.which_gpu.view
    while tab._job is not None:
        QApplication.processEvents()
    texts, layouts = [], {"n": 0}
    set_text = view.summary.setText

    class Layouts(QObject):
        def eventFilter(self, obj, event):
            if obj is window and event.type() == QEvent.Type.LayoutRequest:
                layouts["n"] += 1
            return False

    monkeypatch.setattr(view.summary, "setText", lambda t: (texts.append(t), set_text(t)))
    counter = Layouts()
    window.installEventFilter(counter)
    try:
        window.store.set_field("efficiency", "comm_overlap", 0.5)  # every GPU planned again
        window.store.recompute_now()
        while tab._job is not None:
            QApplication.processEvents()
        QApplication.processEvents()
    finally:
        window.removeEventFilter(counter)
    progress = [t for t in texts if t.startswith("Comparing")]
    assert len(progress) >= 20  # many texts (47) …
    # … the summary fixed and freed, the result (4); before: one per text (48)
    assert layouts["n"] <= 5
    assert not texts[-1].startswith("Comparing") and view.summary.maximumHeight() > 10_000


def test_the_all_scenario_plots_are_built_at_idle_once_a_document_has_several(window, work):
    """Opening 'All scenarios' only paints its plots and redraws the scenarios edited since:
    they are built and given the scenarios when the event loop is idle after a document of
    several scenarios arrives (never for one scenario), once; hidden, they follow no edit."""
    from ftcost_gui.charts import scenario_cost_plot
    from ftcost_gui.charts.curve_layer import Curve

    built, scenario_curves = [], []
    init, set_data = scenario_cost_plot.ScenarioCostPlot.__init__, Curve.setData

    def counting_set_data(self, *args, **kwargs):  # the all-scenario cost curves only
        scenario_curves.append(self)
        set_data(self, *args, **kwargs)

    def counting_init(self, *args, **kwargs):
        built.append(self)
        init(self, *args, **kwargs)

    scenario_cost_plot.ScenarioCostPlot.__init__ = counting_init
    Curve.setData = counting_set_data
    try:
        charts = window.charts
        QApplication.processEvents()
        assert charts.scenario_plots is None and built == []  # one scenario: nothing built
        window.store.set_document(_document(window.store.inputs, 3))
        assert charts.scenario_plots is None  # not while the document arrives…
        QApplication.processEvents()
        assert charts.scenario_plots is not None and len(built) == 1  # …at idle
        cost = charts.scenario_plots[1]
        assert charts.mode() == "method" and not cost.isVisible()
        assert cost.names == ("S0", "S1", "S2") and len(scenario_curves) == 6  # od + spot each
        # Not laid out while hidden: one legend row is made, the rest when it is shown (every
        # row, 201 at 200 scenarios, was made and painted on every edit after).
        assert len(cost.legend.items) == 1 < len(cost.legend.entries)
        assert all(c._path is not None for c in cost.curve_set.curves)  # paths made: paint strokes
        # Hidden, the plots follow no edit (the by-method plots do).
        _one_edit(window, work, 1.1)
        assert len(scenario_curves) == 6
        old = [c.yData for c in cost.curves]
        charts.set_mode("scenarios")
        QApplication.processEvents()
        # Opened: the edited scenario's two curves get new data, no other; nothing is built.
        assert len(built) == 1 and scenario_curves[6:] == [cost.curves[0], cost.spot_curves[0]]
        assert len(cost.legend.items) == len(cost.legend.entries)  # all seen in a 1200x800 window
        assert [c.yData is o for c, o in zip(cost.curves, old, strict=True)] == [
            False, True, True,
        ]  # fmt: skip
    finally:
        scenario_cost_plot.ScenarioCostPlot.__init__ = init
        Curve.setData = set_data
