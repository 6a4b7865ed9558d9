"""The work one edit does in the window (issue 17): counted, never timed.

Legend entries made when a part leaves the memory legend and comes back (CPU offload off and
on), plot paints per edit, cells painted in the Compare table after an edit of the baseline.
"""

from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtWidgets import QApplication

from ftcost_gui.charts.memory_plot import LEGEND_LABELS


@pytest.fixture
def labels_made(monkeypatch):
    """LabelItems constructed anywhere (each legend entry is one)."""
    made = {"n": 0}
    init = pg.LabelItem.__init__

    def counting_init(self, *args, **kwargs):
        made["n"] += 1
        init(self, *args, **kwargs)

    monkeypatch.setattr(pg.LabelItem, "__init__", counting_init)
    return made


def _legend_texts(plot) -> list[str]:
    return [label.text for _sample, label in plot.legend.items]


def test_the_cpu_offload_box_reuses_the_memory_legends_entries(window, labels_made):
    """Offloading the optimizer takes its parts out of the bars and the legend; switching it
    back lists them again. The entries are made the first time only: the legend was cleared and
    nine label items made again on every toggle (~15–45 ms of a check box's 80 ms)."""
    plot = window.charts.memory_plot
    box = window.form_tabs.panels["training"].editor("training", "cpu_offload_optimizer")
    assert not box.isChecked()
    before = _legend_texts(plot)
    texts = {}
    for rounds in range(3):
        for checked in (True, False):
            if rounds == 1:
                labels_made["n"] = 0
            box.setChecked(checked)
            QApplication.processEvents()
            texts.setdefault(checked, _legend_texts(plot))
            assert _legend_texts(plot) == texts[checked]
            shown = [label for _s, label in plot.legend.items]
            assert all(label.isVisible() for label in shown)
            hidden = [e for e in plot._legend_entries.values() if e[1] not in shown]
            assert not any(sample.isVisible() or label.isVisible() for sample, label in hidden)
        if rounds == 1:
            assert labels_made["n"] == 0  # toggled off and on again: no new legend entry
    assert texts[False] == before
    offloaded = set(before) - set(texts[True])
    assert offloaded and offloaded <= {LEGEND_LABELS["optimizer"], LEGEND_LABELS["master"]}
    # Laid out as LegendItem.addItem lays entries out: in order, row by row.
    cols = plot.legend.columnCount
    layout = plot.legend.layout
    for i, (sample, label) in enumerate(plot.legend.items):
        assert layout.itemAt(i // cols, 2 * (i % cols)) is sample
        assert layout.itemAt(i // cols, 2 * (i % cols) + 1) is label
