"""charts/base.LegendLabel: a legend label shows what pyqtgraph's LabelItem shows, and is laid
out again only when its text or style changes (issue 17: start-up, nothing the window shows
changes)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import QGraphicsTextItem

from ftcost_gui.charts.base import LegendLabel


def _counting_set_html(monkeypatch) -> list[QGraphicsTextItem]:
    calls: list[QGraphicsTextItem] = []
    set_html = QGraphicsTextItem.setHtml

    def counting(item, html):
        calls.append(item)
        set_html(item, html)

    monkeypatch.setattr(QGraphicsTextItem, "setHtml", counting)
    return calls


def test_a_legend_label_shows_what_a_label_item_shows(qapp, monkeypatch):
    steps = [  # (text, style given, laid out again?)
        ("Weights", {}, False),  # as made
        ("Weights", {"color": "#000000"}, True),
        ("Weights", {"color": "#000000"}, False),
        ("Weights", {}, False),  # the colour given last time stays
        ("Optimizer", {}, True),
        ("Optimizer", {"color": "#e8e8e8", "size": "9pt"}, True),
        ("Optimizer", {"bold": True}, True),
        ("Optimizer", {"bold": True, "color": "#e8e8e8"}, False),
        ("<b>x</b> &amp; y", {"italic": True}, True),
    ]
    ours = LegendLabel("Weights", color=None, justify="left", size="8pt")
    theirs = pg.LabelItem("Weights", color=None, justify="left", size="8pt")
    calls = _counting_set_html(monkeypatch)
    for text, style, _laid_out in steps:
        ours.setText(text, **style)
        theirs.setText(text, **style)
        assert ours.item.toHtml() == theirs.item.toHtml(), (text, style)
        assert (ours.text, ours.opts) == (theirs.text, theirs.opts)
        assert (ours.minimumWidth(), ours.minimumHeight()) == (
            theirs.minimumWidth(),
            theirs.minimumHeight(),
        )
    # pyqtgraph's lays its text out at each step; ours where the text or style changed
    assert sum(item is theirs.item for item in calls) == len(steps)
    assert sum(item is ours.item for item in calls) == sum(step[2] for step in steps)


def test_the_memory_legend_is_laid_out_once_when_first_shown(qtbot, monkeypatch):
    """Its labels are made in the theme's colour: being shown (the theme set again) lays none
    of them out again (before: every label, ~0.6 ms each)."""
    from ftcost_gui.charts import MemoryPlot

    calls = _counting_set_html(monkeypatch)
    plot = MemoryPlot()
    qtbot.addWidget(plot)
    labels = {id(label.item) for _sample, label in plot.legend.items}
    assert len(labels) >= 8
    made = [item for item in calls if id(item) in labels]
    assert len(made) == len(labels)
    plot.resize(520, 420)
    plot.show()
    qtbot.waitExposed(plot)
    assert [item for item in calls if id(item) in labels] == made
