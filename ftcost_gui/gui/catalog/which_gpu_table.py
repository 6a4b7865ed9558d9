"""The "Which GPU" table view: its columns are sized from the model's texts, not cell by cell.

``resizeColumnsToContents`` asks ``sizeHintForColumn`` of each column. Qt's measures each
sampled cell through the delegate: eight ``data()`` calls into Python and a text layout per cell
(704 cells, ~45 ms of a 5,036-row first show). This one samples the same cells (the same rows,
chosen as ``QTableView::sizeHintForColumn`` chooses them), ranks them by their text's advance
(the model's cached texts; the bold cheapest row in its font) and measures only the widest
through the delegate: what a style adds around a cell's text (``QCommonStyle``: a focus-frame
margin each side; macOS's and Windows' styles their own) is then the style's own. Tests compare
it with Qt's, column by column, in every state they show.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping

from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QWidget

from ..widgets import RowTable
from .which_gpu_model import ComparisonModel


class ComparisonTable(RowTable):
    """A ``RowTable`` of a ``ComparisonModel`` whose column hints read the model's texts."""

    def __init__(self, model: ComparisonModel, parent: QWidget | None = None):
        super().__init__(parent)
        self.comparison_model = model
        self.setModel(model)

    def set_columns(self, hidden: Mapping[int, bool], fit: bool) -> bool:
        """Hide and show columns (``hidden``), fit their widths to the rows when ``fit`` or a
        column came or went; the table's geometry is brought up to date at once. Returns
        whether a column came or went.

        Qt repaints resized (or hidden) columns from a zero timer (``QTableView::columnResized``)
        that fires after the next paint: the viewport was painted twice (~30 ms each) when the
        table was first filled. The header's signals are held meanwhile; the scroll bars and
        viewport are updated here instead, before that paint."""
        header = self.horizontalHeader()
        held = header.blockSignals(True)
        changed = False
        try:
            for column, hide in hidden.items():
                if self.isColumnHidden(column) != hide:
                    self.setColumnHidden(column, hide)
                    changed = True
            if fit or changed:
                self.resizeColumnsToContents()
        finally:
            header.blockSignals(held)
        if fit or changed:
            self.updateGeometries()
            self.viewport().update()
        return changed

    def sampled_rows(self) -> Iterator[int]:
        """The rows ``QTableView::sizeHintForColumn`` measures: those on screen, then above and
        below in turn, ``resizeContentsPrecision`` in all (-1: every row, 0: those on screen).
        The table neither hides nor moves rows: a row's visual index is its model row."""
        count = self.comparison_model.rowCount()
        most = self.horizontalHeader().resizeContentsPrecision()
        rows = self.verticalHeader()
        top = max(0, rows.visualIndexAt(0))
        bottom = rows.visualIndexAt(self.viewport().height())
        if not self.isVisible() or bottom == -1:  # fewer rows than the viewport holds
            bottom = count - 1
        done = 0
        row = top
        while row <= bottom:
            yield row
            done += 1
            if done == most:
                return
            row += 1
        if most == 0 or count == 0:
            return
        above, below = top, row - 1
        while done != most and (above > 0 or below < count - 1):
            if (done % 2 and above > 0) or below == count - 1:
                above -= 1
                yield above
            else:
                below += 1
                yield below
            done += 1

    def sizeHintForColumn(self, column: int) -> int:
        model = self.comparison_model
        self.ensurePolished()
        plain = QFontMetricsF(self.font())
        bold = QFontMetricsF(model.bold_font.resolve(self.font()))
        cheapest = model.cheapest
        widest_advance, widest_row = -1, -1
        for row in self.sampled_rows():
            fm = bold if model.rows[row] is cheapest else plain
            advance = math.ceil(fm.horizontalAdvance(model.texts(row)[column]))
            if advance > widest_advance:
                widest_advance, widest_row = advance, row
        hint = 0
        if widest_row >= 0:  # the delegate's width of that cell, as Qt's own hint measures it
            hint = self.sizeHintForIndex(model.index(widest_row, column)).width()
        return hint + 1 if self.showGrid() else hint
