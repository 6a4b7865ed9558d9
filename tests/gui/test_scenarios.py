"""Scenarios in the window: tabs, operations, undo, Compare tab, overlays, files and exports."""

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTabBar

from ftcost_gui.core import estimate, sweep_mfu
from ftcost_gui.core.document import EstimateDocument, Scenario
from ftcost_gui.core.scenarios import compare_scenarios
from ftcost_gui.core.series import SWEEP_MFUS as MFUS
from ftcost_gui.core.units import GIB, fmt_usd
from ftcost_gui.gui.store import EstimateStore
from ftcost_gui.gui.window.exports import report_format
from ftcost_gui.io.estimate_file import VERSION, load_document, load_estimate
from ftcost_gui.io.export_csv import read_results_csv
from ftcost_gui.present.tables import fmt_delta

DATA = Path(__file__).resolve().parents[1] / "data"


def _names(window):
    return [s.name for s in window.store.document.scenarios]


def _tab_texts(window):
    tabs = window.scenarios.tabs
    return [tabs.tabText(i) for i in range(tabs.count())]


def _click_tab(qtbot, window, index, double=False):
    tabs = window.scenarios.tabs
    center = tabs.tabRect(index).center()
    if double:
        qtbot.mouseDClick(tabs, Qt.MouseButton.LeftButton, pos=center)
    else:
        qtbot.mouseClick(tabs, Qt.MouseButton.LeftButton, pos=center)


def test_scenario_operations_with_tabs_and_undo(window, qtbot, monkeypatch, dialogs):
    original = window.store.document
    assert _tab_texts(window) == ["Scenario 1"] and not window.isWindowModified()
    mfu = window.panels["hardware"].editor("efficiency", "mfu")

    window.action("add_scenario").trigger()
    assert _names(window) == ["Scenario 1", "Scenario 2"] == _tab_texts(window)
    assert window.store.active == 1 and window.scenarios.tabs.currentIndex() == 1
    assert window.isWindowModified()
    mfu.setValue(0.52)  # edits the selected scenario only
    assert window.store.document.scenarios[1].inputs.efficiency.mfu == 0.52
    assert window.store.document.scenarios[0].inputs.efficiency.mfu == 0.4

    _click_tab(qtbot, window, 0)  # switching = one batch update of the forms and views
    assert window.store.active == 0 and mfu.value() == 0.4
    assert window.store.result == estimate(window.store.document.scenarios[0].inputs)
    cost_card = window.results.headline.cards["cost"].value.text()
    assert cost_card.startswith(fmt_usd(window.store.result.cost.on_demand_usd))

    window.action("duplicate_scenario").trigger()
    assert _names(window) == ["Scenario 1", "Scenario 1 (2)", "Scenario 2"] == _tab_texts(window)
    assert window.store.active == 1

    monkeypatch.setattr(window.scenarios, "_ask_scenario_name", lambda title, current: "  Plan  B ")
    _click_tab(qtbot, window, 1, double=True)
    assert _names(window)[1] == "Plan B" == _tab_texts(window)[1]
    monkeypatch.setattr(window.scenarios, "_ask_scenario_name", lambda title, current: "Scenario 2")
    assert window.scenarios.rename(1) is False  # taken: refused with a message
    assert "already" in str(dialogs["warning"][-1][2]) and _names(window)[1] == "Plan B"

    window.scenarios.tabs.moveTab(0, 2)  # what a drag does
    assert _names(window) == ["Plan B", "Scenario 2", "Scenario 1"] == _tab_texts(window)
    assert window.store.document.current.name == "Plan B"  # the selection followed its tab
    window.action("move_scenario_right").trigger()
    assert _names(window) == ["Scenario 2", "Plan B", "Scenario 1"]
    assert window.store.active == 1 and window.scenarios.tabs.currentIndex() == 1

    close = window.scenarios.tabs.tabButton(2, QTabBar.ButtonPosition.RightSide)
    close.click()
    assert _names(window) == ["Scenario 2", "Plan B"] == _tab_texts(window)
    assert window.store.active == 1

    # Undo walks back through every operation to the opened document, then redo replays them.
    steps = window.undo_stack.count()
    assert steps == 7
    for _ in range(steps):
        window.action("undo").trigger()
    assert window.store.document.scenarios == original.scenarios
    assert _tab_texts(window) == ["Scenario 1"]
    assert not window.isWindowModified()
    for _ in range(steps):
        window.action("redo").trigger()
    assert _names(window) == ["Scenario 2", "Plan B"]
    assert window.store.document.scenarios[0].inputs.efficiency.mfu == 0.52
    assert window.isWindowModified()


def test_last_scenario_cannot_be_deleted(window):
    assert window.scenarios.delete() is False
    assert not window.action("delete_scenario").isEnabled()
    assert window.scenarios.tabs.tabsClosable() is False
    assert len(window.store.document.scenarios) == 1


def test_undo_after_switching_keeps_other_scenario_edits(window):
    store = window.store
    window.scenarios.duplicate()
    store.set_field("efficiency", "mfu", 0.3)  # scenario 2
    store.select_scenario(0)
    store.set_field("efficiency", "mfu", 0.5)  # scenario 1
    store.select_scenario(1)
    window.action("undo").trigger()  # undoes scenario 1's edit and shows scenario 1
    assert store.active == 0
    assert [s.inputs.efficiency.mfu for s in store.document.scenarios] == [0.4, 0.3]
    window.action("undo").trigger()
    assert [s.inputs.efficiency.mfu for s in store.document.scenarios] == [0.4, 0.4]
    assert store.active == 1


def test_store_scenario_operations(qtbot):
    store = EstimateStore()
    a = store.inputs
    b = a.model_copy(update={"training": a.training.model_copy(update={"method": "lora"})})
    store.set_document(
        EstimateDocument(
            scenarios=(Scenario(name="A", inputs=a), Scenario(name="B", inputs=b)), active=1
        ),
        record=False,
    )
    assert store.inputs == b and len(store.results) == 2
    assert store.results == [estimate(a), estimate(b)]
    assert store.rename_scenario(0, "") == "A scenario needs a name."
    assert store.rename_scenario(0, "B").startswith("There is already")
    assert store.delete_scenario(0) and store.active == 0 and store.inputs == b
    assert not store.delete_scenario(0)
    store.add_scenario(a, "B")
    assert [s.name for s in store.document.scenarios] == ["B", "B (2)"]
    assert store.move_scenario(1, 0) and store.active == 0
    assert store.document.current.name == "B (2)"


def test_compare_methods_creates_three_scenarios(window):
    before = window.store.document
    window.action("compare_methods").trigger()
    doc = window.store.document
    assert len(doc.scenarios) == len(before.scenarios) + 3
    added = doc.scenarios[-3:]
    assert [s.inputs.training.method for s in added] == ["full_amp_adamw", "lora", "qlora"]
    assert [s.name for s in added] == [f"Scenario 1 · {x}" for x in ("Full FT", "LoRA", "QLoRA")]
    assert window.results.tab_shown(window.results.compare)
    assert window.charts.chart_mode.currentData() == "scenarios"
    assert window.undo_stack.count() == 1
    window.action("undo").trigger()
    assert window.store.document == before


def test_comparison_table_marks_best_and_baseline_deltas(window):
    window.scenarios.compare_methods()
    doc, results = window.store.document, window.store.results
    view = window.results.compare
    rows = compare_scenarios(results, 0)
    expected = {(i, j) for i, row in enumerate(rows) for j in row.best}
    assert view.best_cells() == expected and expected
    for i, j in expected:
        text, bold = view.cell(i + 1, j)
        assert bold and text.startswith("✓")
    assert "(baseline)" in view.header_text(0)

    # Pick another baseline: deltas are recomputed against it.
    view.baseline_combo.setCurrentIndex(2)
    view.baseline_combo.activated.emit(2)
    rows = compare_scenarios(results, 2)
    cost = next(r for r in rows if r.metric.key == "on_demand_usd")
    text = view.cell_text("Cost per run, on-demand", 3)
    assert fmt_usd(cost.values[3]) in text
    assert fmt_delta("on_demand_usd", cost.deltas[3], cost.ratios[3]) in text
    assert "(baseline)" in view.header_text(2)
    assert view.baseline == 2
    # The baseline follows its scenario when the order changes.
    window.store.move_scenario(2, 0)
    assert view.baseline == 0 and view.names[0] == doc.scenarios[2].name


def test_scenario_plots_overlay_and_export(window, tmp_path):
    window.scenarios.compare_methods()
    window.results.show_tab(window.charts)  # the plots follow the store while on screen
    memory, cost = window.charts.scenario_plots
    doc, results = window.store.document, window.store.results
    assert window.charts.charts_stack.currentWidget() is window.charts.scenario_plots_splitter
    assert len(cost.curves) == len(doc.scenarios)
    for s, curve in zip(doc.scenarios, cost.curves, strict=True):
        _x, y = curve.getData()
        assert np.allclose(y, [p.on_demand_usd for p in sweep_mfu(s.inputs, MFUS)])
        assert s.name in curve.opts["name"]
    pens = {c.opts["pen"].color().name() for c in cost.curves}
    assert len(pens) == len(cost.curves)  # distinct colours
    assert memory.totals_gib() == pytest.approx([r.memory.total_bytes / GIB for r in results])
    for which in ("memory", "cost"):
        png, svg = tmp_path / f"{which}.png", tmp_path / f"{which}.svg"
        assert window.exports.export_plot(which, "png", str(png))
        assert window.exports.export_plot(which, "svg", str(svg))
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 1000
        assert ET.fromstring(svg.read_text()).tag.endswith("svg")
    window.charts.set_mode("method")
    assert window.charts.visible_plot("cost") is window.charts.cost_plot


def test_multi_scenario_save_and_open_round_trip(window, tmp_path, monkeypatch):
    window.scenarios.compare_methods()
    window.store.rename_scenario(0, "Baseline plan")
    window.store.select_scenario(2)
    doc = window.store.document
    target = tmp_path / "plans.ftcost"
    monkeypatch.setattr(window.files, "_ask_save_path", lambda: str(target))
    window.action("save_as").trigger()
    assert not window.isWindowModified()
    assert load_document(target) == doc
    assert json.loads(target.read_text())["version"] == VERSION

    window.files.new()
    assert len(window.store.document.scenarios) == 1
    monkeypatch.setattr(window.files, "_ask_open_path", lambda: str(target))
    window.action("open").trigger()
    assert window.store.document == doc
    assert _tab_texts(window) == [s.name for s in doc.scenarios]
    assert window.scenarios.tabs.currentIndex() == 2
    assert window.store.results == [estimate(s.inputs) for s in doc.scenarios]
    assert window.undo_stack.count() == 0 and not window.isWindowModified()


def test_version_1_file_migrates_in_window(window, tmp_path):
    src = DATA / "estimate_v1.ftcost"
    assert json.loads(src.read_text())["version"] == 1
    assert window.files.load_path(src)
    assert _tab_texts(window) == ["Scenario 1"]
    assert window.store.inputs == load_estimate(src)
    window.store.rename_scenario(0, "Migrated")
    target = tmp_path / "migrated.ftcost"
    assert window.files.write(target)
    saved = json.loads(target.read_text())
    assert saved["version"] == VERSION and saved["scenarios"][0]["name"] == "Migrated"


def test_version_2_fixture_opens_on_its_active_scenario(window):
    assert window.files.load_path(DATA / "estimate_v2.ftcost")
    assert _tab_texts(window) == ["Full FT", "LoRA r16", "QLoRA r16"]
    assert window.store.active == 1 and window.scenarios.tabs.currentIndex() == 1
    method = window.panels["training"].editor("training", "method")
    assert method.currentData() == "lora"
    assert window.charts.chart_mode.currentData() == "scenarios"  # several scenarios: side by side
    assert "LoRA r16:" in window.summary_label.text()


def test_export_results_csv_round_trips(window, tmp_path, monkeypatch):
    window.scenarios.compare_methods()
    target = tmp_path / "results.csv"
    monkeypatch.setattr(window.exports, "_ask_export_file", lambda *a: str(target))
    window.action("export_results").trigger()
    table = read_results_csv(target.read_text())
    for s in window.store.document.scenarios:
        r = estimate(s.inputs)
        assert float(table[(s.name, "cost", "on_demand_usd")]) == r.cost.on_demand_usd
        assert float(table[(s.name, "memory", "total_bytes")]) == r.memory.total_bytes
        assert int(table[(s.name, "time", "num_gpus")]) == r.time.num_gpus


def test_export_report_from_window(window, tmp_path, monkeypatch):
    window.scenarios.compare_methods()
    target = tmp_path / "report.html"
    monkeypatch.setattr(window.exports, "_ask_report_path", lambda: str(target))
    window.action("export_report").trigger()
    html = target.read_text()
    for s, r in zip(window.store.document.scenarios, window.store.results, strict=True):
        assert s.name in html
        assert fmt_usd(r.cost.on_demand_usd) in html
    # memory and cost, and the recommendation's plan front and two what-fits plots
    assert html.count('src="data:image/png;base64,') == 5
    assert report_format("x.md") == "md" and report_format("x.PDF") == "pdf"


def test_names_from_files_are_shown_not_applied(window):
    """A scenario name is data: no markup applied, no bidi override, '&' is not a mnemonic."""
    window.scenarios.duplicate()
    hostile = '<img src="x.png">R&D\u202e plan'
    assert window.store.rename_scenario(1, hostile) == ""
    window.store.recompute_now()
    shown = '<img src="x.png">R&D plan'
    assert window.scenarios.tabs.tabText(1) == shown.replace("&", "&&")
    tip = window.scenarios.tabs.tabToolTip(1)
    assert "&lt;img" in tip and "<img" not in tip
    assert window.summary_label.textFormat() == Qt.TextFormat.PlainText
    assert window.summary_label.text().startswith(f"{shown}: ")
    # the Compare tab's stages line names it as written (a first '<' in its one line made Qt
    # take the whole line as rich text: the name's tag applied)
    compare = window.results.compare
    window.results.show_tab(compare)
    assert compare.stages.textFormat() == Qt.TextFormat.PlainText
    assert f" → {shown}): " in compare.stages.text()
    assert compare.baseline_combo.itemText(1) == compare.header_text(1) == shown  # no bidi mark


def test_all_scenarios_chart_never_shows_a_curve_it_cannot_compute(window, monkeypatch):
    import importlib

    series_mod = importlib.import_module("ftcost_gui.core.series")
    real = series_mod.plan
    broken = {"qlora"}

    def plan(inputs):  # QLoRA copies cannot be estimated (a core failure)
        if inputs.training.method in broken:
            raise ArithmeticError("not finite")
        return real(inputs)

    monkeypatch.setattr(series_mod, "plan", plan)
    window.scenarios.compare_methods()
    window.store.select_scenario(0)
    charts = window.charts
    window.results.show_tab(charts)  # the plots follow the store while on screen
    assert charts.mode() == "scenarios"
    assert charts.charts_stack.currentWidget() is charts.scenarios_failed
    assert "Scenario 1 · QLoRA" in charts.scenarios_failed.text()
    assert window.results.stack.currentWidget() is window.results.results_page  # scenario 1 is fine

    broken.clear()
    window.store.rename_scenario(3, "Q")  # any change recomputes; now every scenario can be
    assert charts.charts_stack.currentWidget() is charts.scenario_plots_splitter
    memory, _cost = charts.scenario_plots
    assert len(memory.totals_gib()) == 4
