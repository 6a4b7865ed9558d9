"""Names from files shown in a plot legend (pyqtgraph's legend labels are rich text): a scenario
or GPU name is shown as written, never read as markup (brief: names from files are data, escaped
for each output)."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtWidgets import QApplication

from ftcost_gui.charts.fits_plot import WhatFitsPlot
from ftcost_gui.core.document import EstimateDocument, Scenario
from ftcost_gui.core.what_fits import what_fits

NAME = "<b>bold</b> & <i>x</i>"


def _label_texts(legend) -> list[str]:
    return [label.item.toPlainText() for _sample, label in legend.items]


def test_a_scenario_name_shows_as_written_in_the_all_scenarios_legend(window):
    inputs = window.store.inputs
    doc = EstimateDocument(
        scenarios=(
            Scenario(name=NAME, inputs=inputs),
            Scenario(name="plain", inputs=inputs.edited("data", epochs=2)),
        )
    )
    window.store.set_document(doc)
    window.results.show_tab(window.charts)
    window.charts.set_mode("scenarios")
    QApplication.processEvents()
    cost = window.charts.scenario_plots[1]
    texts = _label_texts(cost.legend)
    assert texts[:2] == ["▶ " + NAME, "plain"] or texts[:2] == [NAME, "▶ plain"], texts
    assert not any("bold" == t for t in texts)  # '<b>' was not taken as a tag


def test_a_gpu_name_shows_as_written_in_the_what_fits_legend(window, qtbot):
    fits = what_fits(window.store.inputs)
    named = replace(fits, gpus=(replace(fits.gpus[0], name=NAME), *fits.gpus[1:]))
    plot = WhatFitsPlot("seq_len")
    qtbot.addWidget(plot)
    plot.set_series(named)
    texts = _label_texts(plot.legend)
    assert any(t.startswith(NAME + " ") for t in texts), texts
