"""The Compare table's columns are as wide as their lines: no value, delta or (short) scenario
name is cut, the columns still fill a wider viewport, and a table wider than it scrolls. (The
columns were the viewport shared out evenly: at 12 scenarios on 1920 px a delta line lost its
first characters, at 200 scenarios every line did.)"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication

from ftcost_gui.core.document import EstimateDocument, Scenario
from ftcost_gui.gui.compare_paint import PAD


def _document(inputs, n: int) -> EstimateDocument:
    tokens = inputs.data.total_tokens
    return EstimateDocument(
        scenarios=tuple(
            Scenario(
                name=f"Scenario {i + 1}",
                inputs=inputs.edited("data", total_tokens=tokens * (1 + i / 97)),
            )
            for i in range(n)
        )
    )


def _shown(window, n: int, size: tuple[int, int]):
    window.resize(*size)
    window.store.set_document(_document(window.store.inputs, n))
    window.results.show_tab(window.results.compare)
    for _ in range(3):  # the first paint measures the lines and widens the columns
        QApplication.processEvents()
    view = window.results.compare
    return view.table, view.model


def _edit(window, factor: float) -> None:
    store = window.store
    store.set_field("data", "total_tokens", store.inputs.data.total_tokens * factor)
    store.recompute_now()
    QApplication.processEvents()


def _on_screen(table) -> tuple[range, range]:
    """The columns and rows the viewport shows (the model words those cells when painted)."""
    port = table.viewport()
    last_col, last_row = table.columnAt(port.width() - 1), table.rowAt(port.height() - 1)
    model = table.model()
    return (
        range(table.columnAt(0), (last_col if last_col >= 0 else model.columnCount() - 1) + 1),
        range(table.rowAt(0), (last_row if last_row >= 0 else model.rowCount() - 1) + 1),
    )


@pytest.mark.parametrize("n", [12, 200])
@pytest.mark.parametrize("size", [(1024, 700), (1920, 1080)])
def test_every_line_on_screen_fits_its_column(window, n, size):
    table, model = _shown(window, n, size)
    delegate = table.itemDelegate()
    plain = QFontMetrics(table.font())
    bold = QFontMetrics(model.bold)
    delta = QFontMetrics(delegate._delta_font(table.font())[0])
    header = QFontMetrics(table.horizontalHeader().font())
    for step in range(3):
        if step:
            _edit(window, 1.0 + step / 1000)  # the deltas move
        columns, rows = _on_screen(table)
        assert len(columns) >= 2 and len(rows) >= 2
        for col in columns:
            room = table.columnWidth(col) - 2 * PAD
            name = model.headerData(col, Qt.Orientation.Horizontal)
            assert max(
                header.horizontalAdvance(line) for line in name.split("\n")
            ) < table.columnWidth(col)
            for row in rows:
                value, delta_line, best, _bad = model.painted(row, col)
                assert (bold if best else plain).horizontalAdvance(value) <= room, (row, col, value)
                assert delta.horizontalAdvance(delta_line) <= room, (row, col, delta_line)
    if n == 200:  # the table is wider than the viewport: it scrolls
        assert table.horizontalScrollBar().maximum() > 0


def test_a_few_columns_still_fill_the_viewport_and_an_edit_keeps_their_widths(window):
    table, _model = _shown(window, 3, (1920, 1080))
    widths = [table.columnWidth(j) for j in range(3)]
    assert abs(sum(widths) - table.viewport().width()) <= 3  # (Stretch shares out the rest)
    assert table.horizontalScrollBar().maximum() == 0
    least = table.horizontalHeader().minimumSectionSize()
    for factor in (1.0001, 1.3, 0.9):
        _edit(window, factor)
        assert table.horizontalHeader().minimumSectionSize() >= least  # grows, never jumps back
    assert [table.columnWidth(j) for j in range(3)] == widths


def test_another_table_is_measured_afresh(window):
    """A long scenario name widens every column (up to ~24 characters); a table of other
    scenarios is measured again, not kept as wide."""
    table, _model = _shown(window, 3, (1920, 1080))
    plain = table.horizontalHeader().minimumSectionSize()
    named = EstimateDocument(
        scenarios=tuple(
            Scenario(name=name, inputs=s.inputs)
            for name, s in zip(
                ("A scenario whose name is long", "B", "C"),
                window.store.document.scenarios,
                strict=True,
            )
        )
    )
    window.store.set_document(named)
    for _ in range(3):
        QApplication.processEvents()
    wide = table.horizontalHeader().minimumSectionSize()
    assert wide > plain
    window.store.set_document(_document(window.store.inputs, 3))
    for _ in range(3):
        QApplication.processEvents()
    assert table.horizontalHeader().minimumSectionSize() == plain


def test_a_paint_that_words_no_cell_measures_nothing(window, monkeypatch):
    """A repaint of the same table with no cell newly worded (a hover, the cursor) measures no
    line; an edit (a new table) does."""
    from ftcost_gui.gui.compare_widths import ColumnWidths

    table, _model = _shown(window, 40, (1920, 1080))
    measures, least = [], ColumnWidths.least
    monkeypatch.setattr(
        ColumnWidths, "least", lambda self, *a: (measures.append(1), least(self, *a))[1]
    )
    for _ in range(3):
        table.viewport().repaint()
    assert measures == []
    _edit(window, 1.0001)
    assert len(measures) >= 1
